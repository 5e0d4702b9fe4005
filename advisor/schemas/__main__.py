"""`python -m advisor.schemas` (make schemas): regenerate every committed JSON Schema file."""

from advisor.schemas import write_all

if __name__ == "__main__":
    for path in write_all():
        print(path.name)
