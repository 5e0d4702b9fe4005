"""The host check's gathering: host facts, NVIDIA (NVML) and Ascend (npu-smi) readers, installed
frameworks and their one-step smoke run. Judging the facts is advisor.check.host's job."""
