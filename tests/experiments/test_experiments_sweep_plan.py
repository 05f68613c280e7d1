"""A job finds its siblings (same overrides but the release step) from the multirun's saved config."""

from omegaconf import OmegaConf

from experiments.sweep_plan import sibling_release_steps


def _write(tmp_path, task, params=None):
    OmegaConf.save(OmegaConf.create({"hydra": {"overrides": {"task": task}, "sweeper": {"params": params or {}}}}),
                   tmp_path / "multirun.yaml")


def test_siblings_share_everything_but_the_release_step(tmp_path):
    _write(tmp_path, ["experiment=release_sweep", "probe.release_step=0,3,6", "seed=0,1", "scene=thrown_ball,ramp"])
    own = ["experiment=release_sweep", "probe.release_step=3", "seed=1", "scene=ramp"]
    assert sibling_release_steps(tmp_path, own, 3) == (0, 3, 6)


def test_sweeper_params_and_command_line(tmp_path):
    _write(tmp_path, ["experiment=release_sweep", "seed=0"], params={"probe.release_step": "range(0,31,10)"})
    assert sibling_release_steps(tmp_path, ["experiment=release_sweep", "seed=0", "probe.release_step=10"], 10) \
        == (0, 10, 20, 30)
    _write(tmp_path, ["experiment=release_sweep", "probe.release_step=5,7"], params={"probe.release_step": "0,1"})
    assert sibling_release_steps(tmp_path, ["experiment=release_sweep", "probe.release_step=5"], 5) == (5, 7)


def test_without_a_plan_a_job_shares_nothing(tmp_path):
    assert sibling_release_steps(tmp_path, ["probe.release_step=4"], 4) == (4,)
    assert sibling_release_steps(None, [], 4) == (4,)
