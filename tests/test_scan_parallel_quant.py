"""Sharded training, quantised fine-tuning and flexible attention priced as the features they are (round 5
found FSDP, fully_shard and DTensor mapped to mindspore.communication at the DDP figure, bitsandbytes/QLoRA
free, and flex_attention priced as a rename)."""

import textwrap

import pytest

from advisor.scan import features, scan_path


def _write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def _summary(result, kind):
    return next(s for s in result.hazard_summary if s.kind == kind)


DDP_ONLY = """
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

def setup(model):
    dist.init_process_group("nccl")
    return DDP(model)
"""
SHARDED = """
import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import parallelize_module, ColwiseParallel
import torch.distributed.checkpoint as dcp

def setup(model):
    dist.init_process_group("nccl")
    mesh = init_device_mesh("cuda", (2, 4), mesh_dim_names=("dp", "tp"))
    parallelize_module(model, mesh["tp"], {"wq": ColwiseParallel()})
    fully_shard(model, mesh=mesh["dp"])
    dcp.save({"model": model.state_dict()}, checkpoint_id="ckpt")
    return model
"""


def test_sharded_and_tensor_parallel_set_ups_cost_their_own_figures(tmp_path):
    ddp = scan_path(_write(tmp_path / "ddp", {"train.py": DDP_ONLY}))
    sharded = scan_path(_write(tmp_path / "sharded", {"train.py": SHARDED}))
    base = _summary(ddp, "distributed").effort_hours
    own = {f: hours for _, f, hours, _ in features.PARALLEL}
    expected_low = base[0] + sum(own[f][0] for f in own if f != "pipeline parallel")
    got = _summary(sharded, "distributed")
    assert got.effort_hours[0] >= expected_low - 0.01
    assert "sharded data parallel (FSDP): 16-40 h" in got.effort_basis
    messages = " ".join(h.message for h in sharded.hazards if h.kind == "distributed")
    assert "optimizer parallel" in messages and "shard strategies" in messages


def test_quantised_fine_tuning_is_a_feature_with_a_figure(tmp_path):
    """alpaca-lora's shape: LLaMA loaded in 8 bits through bitsandbytes, prepared for k-bit training."""
    _write(
        tmp_path,
        {
            "finetune.py": """
            import torch
            import transformers
            from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
            from transformers import LlamaForCausalLM, BitsAndBytesConfig

            def train(base_model):
                model = LlamaForCausalLM.from_pretrained(base_model, load_in_8bit=True, torch_dtype=torch.float16)
                model = prepare_model_for_kbit_training(model)
                q = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4")
                return get_peft_model(model, LoraConfig(r=8))
            """
        },
    )
    result = scan_path(tmp_path)
    s = _summary(result, "quantized_training")
    assert s.count >= 3 and s.risk == "medium"
    assert s.effort_hours[0] >= 8 and "msbnb" in s.fix
    assert any(r.startswith("medium: quantized_training") for r in result.risk_reasons)


def test_load_in_8bit_false_is_no_quantisation(tmp_path):
    _write(
        tmp_path,
        {
            "m.py": "import torch\nfrom transformers import AutoModel\nm = AutoModel.from_pretrained('x', load_in_8bit=False)\n"
        },
    )
    assert not [h for h in scan_path(tmp_path).hazards if h.kind == "quantized_training"]


@pytest.mark.parametrize("name", ["flex_attention", "create_block_mask"])
def test_flex_attention_is_no_rename(tmp_path, name):
    _write(
        tmp_path,
        {
            "attn.py": f"import torch\nfrom torch.nn.attention.flex_attention import {name}\n\ny = {name}(None, None, None)\n"
        },
    )
    result = scan_path(tmp_path)
    api = next(a for a in result.apis if a.name.endswith(name))
    assert api.mapping == "none" and api.effort_hours[0] >= 8
    assert any("with no MindSpore equivalent" in r for r in result.risk_reasons)
