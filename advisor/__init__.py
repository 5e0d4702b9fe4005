"""framework-advisor: measured advice on PyTorch, MindSpore or a hybrid workflow."""

__version__ = "0.1.0"
TOOL_NAME = "framework-advisor"
