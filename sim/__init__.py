"""sim stage: PyBullet scenes, physics predicates, summaries and the revision loop.

Public API (see each module):

* ``sim.scenes``: templates ``thrown_ball``, ``ramp``, ``dominoes``, ``collision`` -> ``SceneSpec``.
* ``sim.engine``: ``simulate(spec) -> Trajectory``, ``load_scene(client, spec)``, ``set_object_poses``,
  ``EngineSettings``.
* ``sim.predicates``: typed predicates (``kind``-discriminated) and ``evaluate(predicates, spec, traj)``.
* ``sim.summarize.summarize(report) -> str``; ``sim.camera.project`` (pinhole projection).
* ``sim.request.PhysicsRequest``; ``sim.revise.run_revision_loop``; ``sim.authors`` (numeric, llm).
* ``sim.io``: load/save specs, trajectories and requests with clear user errors.

Modules are imported on use (``import sim`` does not load PyBullet or SciPy).
"""
