"""The failure and checkpoint allowance of a long training run.

A run of many device-days is interrupted: Llama 3's pre-training saw 419 unexpected interruptions in
54 days on 16,384 GPUs (INTERRUPTIONS_PER_DEVICE_HOUR), one every ~3 hours at that scale. Each costs
a restart (RESTART_HOURS) and the work since the last checkpoint (half an interval on average); each
checkpoint costs its write time (the weights and optimizer states of the trained parameters, written
by every host at CHECKPOINT_WRITE_GBS_PER_HOST). The interval is Young's optimum, sqrt(2 x write time x
mean time between interruptions) (J. W. Young, "A first order approximation to the optimum checkpoint
interval", CACM 17(9), 1974). The allowance is

    hours x (write time / interval) + expected interruptions x (restart + interval / 2)

over the range of training hours. Runs under RELIABILITY_MIN_HOURS get none (said so).
"""

from __future__ import annotations

import math
from typing import Optional

from pydantic import BaseModel, ConfigDict, Field

from advisor.decision.constants import CONSTANTS, DEFAULT, Consts
from advisor.decision.evidence import Span
from advisor.decision.findings import said


class Reliability(BaseModel):
    """The failure and checkpoint allowance of one projection, with every input a reviewer needs."""

    model_config = ConfigDict(extra="forbid")

    devices: int
    checkpoint_gb: float = Field(description="one checkpoint: weights and optimizer states of the trained parameters")
    write_minutes: float = Field(description="one checkpoint's write time over every host")
    mean_hours_between_interruptions: float = Field(description="1 / (rate per device-hour x devices)")
    interval_hours: float = Field(description="Young's optimum checkpoint interval")
    interruptions: Span = Field(description="expected interruptions over the run")
    allowance_hours: Span = Field(description="checkpoint writes + restarts + lost work, added to the training hours")
    notes: list[str] = Field(default_factory=list)


def allowance(training_hours: Span, devices: int, checkpoint_gb: float, k: Consts = DEFAULT) -> Optional[Reliability]:
    """The allowance for a run of `training_hours` (the pure compute time) on `devices`; None below
    RELIABILITY_MIN_HOURS."""
    if training_hours.high < k["RELIABILITY_MIN_HOURS"] or devices < 1:
        return None
    hosts = max(1.0, math.ceil(devices / k["DEVICES_PER_HOST"]))
    write_h = checkpoint_gb / (hosts * k["CHECKPOINT_WRITE_GBS_PER_HOST"]) / 3600
    mtbi = 1 / (k["INTERRUPTIONS_PER_DEVICE_HOUR"] * devices)
    interval = math.sqrt(2 * write_h * mtbi) if write_h > 0 else training_hours.high
    restart = k["RESTART_HOURS"]

    def extra(hours: float) -> tuple[float, float]:
        interruptions = hours / mtbi
        return interruptions, hours * write_h / interval + interruptions * (restart + min(interval, hours) / 2)

    (n_low, a_low), (n_high, a_high) = extra(training_hours.low), extra(training_hours.high)
    rate = CONSTANTS["INTERRUPTIONS_PER_DEVICE_HOUR"]
    return Reliability(
        devices=devices,
        checkpoint_gb=round(checkpoint_gb, 3),
        write_minutes=round(write_h * 60, 3),
        mean_hours_between_interruptions=round(mtbi, 3),
        interval_hours=round(interval, 3),
        interruptions=Span(low=round(n_low, 3), high=round(n_high, 3), unit="interruptions"),
        allowance_hours=Span(low=round(a_low, 4), high=round(a_high, 4), unit="hours"),
        notes=[
            said(
                "reliability.allowance",
                interruptions_low=n_low,
                interruptions_high=n_high,
                mtbi=mtbi,
                devices=devices,
                source=rate.source,
                restart=restart,
                checkpoint_gb=checkpoint_gb,
                write_minutes=write_h * 60,
                interval=interval,
                write_gbs=k["CHECKPOINT_WRITE_GBS_PER_HOST"],
                low=a_low,
                high=a_high,
            )
        ],
    )
