"""The PyTorch -> MindSpore API mapping table."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field, model_validator


from knowledge.models.common import (
    Confidence,
    MappingKind,
    ScanKind,
    SourcedRange,
    _Entry,
)


class ApiMapping(_Entry):
    pytorch: str = Field(
        min_length=1,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$",
        description="fully qualified name, e.g. torch.nn.Conv2d",
    )
    mindspore: Optional[str] = None
    mapping: MappingKind
    note: str = ""
    fix: Optional[str] = None
    effort_hours: Optional[SourcedRange] = Field(None, description="per distinct API used")
    pitfall: Optional[str] = None
    scan_kind: Optional[ScanKind] = Field(None, description="hazard kind the scan reports for it")
    scan_hazard: Optional[Literal["dynamic_shape", "no_equivalent"]] = Field(
        None, description="scan-only hazard kind for it (explained by the scan itself, not by a pitfall)"
    )
    adapter: Optional[bool] = Field(
        None, description="usable through MSAdapter/MindTorch; unset = follows the mapping (same/differs yes, none no)"
    )
    before: Optional[str] = Field(None, description="short PyTorch pattern for the fix example")
    after: Optional[str] = Field(None, description="the MindSpore pattern it becomes")
    source: str = Field(min_length=1)
    confidence: Confidence

    @model_validator(mode="after")
    def _none_has_no_target(self) -> "ApiMapping":
        if self.mapping != "none" and not self.mindspore:
            raise ValueError(f"mapping '{self.mapping}' needs a mindspore name (or use mapping: none)")
        if (self.before is None) != (self.after is None):
            raise ValueError("before and after come together (a fix example has both)")
        return self
