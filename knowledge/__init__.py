"""The knowledge base: YAML data under knowledge/data validated by the models in knowledge/models.py."""
