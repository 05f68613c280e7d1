"""control stage: depth-control rendering with a silhouette fallback; camera projection of trajectories.

Public API:

* :class:`control.camera.Camera` - PyBullet view/projection matrices, ``project``, ``ray_directions``,
  TinyRenderer's pixel convention.
* :func:`control.project.project_trajectory` - (T, K, 2) pixel paths of the objects' centres.
* :class:`control.render.AnalyticRenderer` (default) / :class:`control.render.TinyRendererBackend` -
  ``render(spec, traj, *, rgb=None) -> SceneRender`` (RGB, distance, segmentation).
* :class:`control.depth.DepthControl` / :class:`control.depth.SilhouetteControl` -
  ``(spec, traj, render=None) -> ControlVideo``.
* :mod:`control.io` - ``save_control`` / ``load_control`` / ``save_scene_rgb`` (video files through the one
  codec, :mod:`veriphy.video`).
"""
