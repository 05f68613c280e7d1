"""``python -m experiments.memory distill|review|measure [HYDRA OVERRIDES]`` (see ``experiments.memory.app``)."""

from experiments.memory.app import cli

if __name__ == "__main__":
    cli()
