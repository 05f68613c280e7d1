"""Synthetic clips with known truth for the critic tests: numpy-drawn discs over a gradient wall and a floor.

Physics: a ball falls under gravity ``g_px`` (px/s^2) from rest or thrown, bounces on the floor with
restitution ``e`` and settles; integrated at 2 kHz and sampled at the frame times, so positions are exact to
sub-pixel. Discs are anti-aliased (coverage from the distance to the centre). Impact clicks go into a mono
audio track at each floor contact. Doctored versions change one thing and report the frames they changed
(``Synthetic.doctored_frames``, inclusive) so tests can check a packet window against them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from critic.types import VideoContext
from critic.video import context_from_arrays
from veriphy.video import write_video

H, W = 96, 160
FLOOR_Y = 80.0           # floor line (px): the floor region is below it
RADIUS = 5.0             # px
G_PX = 600.0             # px/s^2: a 5 cm radius ball at 60 px/m would see 9.81 m/s^2 as 589 px/s^2
FPS = 24.0
AUDIO_RATE = 16000

COLORS = {"red": (220, 40, 40), "blue": (40, 70, 220), "green": (40, 180, 60), "yellow": (230, 210, 40)}


@dataclass
class Ball:
    """Positions (T, 2) px of one disc; ``radius`` (T,) px; ``visible`` (T,) bool; ``color`` RGB."""

    xy: np.ndarray
    radius: np.ndarray
    visible: np.ndarray
    color: tuple[int, int, int]


@dataclass
class Synthetic:
    frames: np.ndarray
    fps: float
    audio: np.ndarray | None
    audio_rate_hz: int
    balls: dict[str, Ball]
    contacts_s: list[float]
    doctored_frames: tuple[int, int] | None = None
    notes: dict = field(default_factory=dict)

    @property
    def times_s(self) -> np.ndarray:
        return np.arange(len(self.frames)) / self.fps

    def context(self, name: str = "synthetic") -> VideoContext:
        return context_from_arrays(self.frames, self.fps, audio=self.audio, audio_rate_hz=self.audio_rate_hz, name=name)

    def write(self, path: str | Path) -> Path:
        return Path(write_video(path, self.frames, self.fps, audio=self.audio,
                                audio_rate_hz=self.audio_rate_hz if self.audio is not None else None))


def background(h: int = H, w: int = W, floor_y: float = FLOOR_Y) -> np.ndarray:
    """A vertical grey-blue gradient wall and a brown floor below ``floor_y`` -> (H, W, 3) uint8."""
    img = np.zeros((h, w, 3), np.float64)
    ramp = np.linspace(0.0, 1.0, h)[:, None]
    img[:] = (np.array([200, 205, 215]) * (1 - 0.25 * ramp))[:, None, :]
    fy = int(round(floor_y))
    img[fy:] = (150, 115, 80)
    return img.astype(np.uint8)


def draw(frames_bg: np.ndarray, balls: list[Ball], t_count: int) -> np.ndarray:
    h, w = frames_bg.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    out = np.repeat(frames_bg[None], t_count, axis=0).astype(np.float64)
    for k in range(t_count):
        for b in balls:
            if not b.visible[k]:
                continue
            cx, cy = b.xy[k]
            dist = np.hypot(xx - cx, yy - cy)
            alpha = np.clip(b.radius[k] + 0.5 - dist, 0.0, 1.0)[..., None]
            out[k] = out[k] * (1 - alpha) + alpha * np.array(b.color, np.float64)
    return np.clip(np.round(out), 0, 255).astype(np.uint8)


def bounce_path(t: np.ndarray, *, x0: float, y0: float, vx: float = 0.0, vy: float = 0.0, g: float = G_PX,
                e: float = 0.55, floor_y: float = FLOOR_Y, radius: float = RADIUS, rest_speed: float = 40.0,
                floor: bool = True) -> tuple[np.ndarray, list[float]]:
    """Centre positions (T, 2) px at times ``t`` of a ball bouncing on the floor, and the contact times."""
    dt = 1.0 / 2000.0
    n = int(np.ceil(t[-1] / dt)) + 2
    x, y, u, v = x0, y0, vx, vy
    xs, ys, ts = [], [], []
    contacts = []
    resting = False
    ground = floor_y - radius
    for i in range(n):
        ts.append(i * dt)
        xs.append(x)
        ys.append(y)
        if resting:
            u *= 0.995
            x += u * dt
            continue
        v_new = v + g * dt
        y_new = y + v * dt + 0.5 * g * dt * dt
        if floor and y_new >= ground and v_new > 0:
            # exact contact time inside the step
            a, b, c = 0.5 * g, v, y - ground
            disc = max(b * b - 4 * a * c, 0.0)
            tc = (-b + np.sqrt(disc)) / (2 * a) if a > 0 else c / max(-b, 1e-9)
            vc = v + g * tc
            contacts.append(i * dt + tc)
            v = -e * vc
            u *= 0.8
            y = ground
            if abs(v) < rest_speed:
                v, resting = 0.0, True
            x += u * dt
            continue
        x += u * dt
        y, v = y_new, v_new
    ts, xs, ys = np.array(ts), np.array(xs), np.array(ys)
    return np.stack([np.interp(t, ts, xs), np.interp(t, ts, ys)], 1), [c for c in contacts if c <= t[-1]]


def clicks(contacts_s: list[float], duration_s: float, rate: int = AUDIO_RATE, *, noise: float = 0.002,
           seed: int = 0) -> np.ndarray:
    """A mono track: faint noise plus a 20 ms decaying 900 Hz click starting at each contact time."""
    rng = np.random.default_rng(seed)
    n = int(round(duration_s * rate))
    audio = noise * rng.standard_normal(n)
    k = np.arange(int(0.02 * rate))
    click = 0.6 * np.sin(2 * np.pi * 900 * k / rate) * np.exp(-k / (0.004 * rate))
    for c in contacts_s:
        i = int(round(c * rate))
        if 0 <= i < n:
            m = min(len(click), n - i)
            audio[i:i + m] += click[:m]
    return np.clip(audio, -1, 1).astype(np.float32)


def drop_clip(*, t_count: int = 48, fps: float = FPS, x0: float = 50.0, y0: float = 20.0, vx: float = 25.0,
              color: str = "red", audio: bool = True, e: float = 0.55) -> Synthetic:
    """A ball dropped (with a little sideways speed) that bounces on the floor and settles: correct physics."""
    t = np.arange(t_count) / fps
    xy, contacts = bounce_path(t, x0=x0, y0=y0, vx=vx, e=e)
    ball = Ball(xy=xy, radius=np.full(t_count, RADIUS), visible=np.ones(t_count, bool), color=COLORS[color])
    frames = draw(background(), [ball], t_count)
    snd = clicks(contacts, t_count / fps) if audio else None
    return Synthetic(frames=frames, fps=fps, audio=snd, audio_rate_hz=AUDIO_RATE, balls={"ball": ball},
                     contacts_s=contacts)


def collision_clip(*, t_count: int = 40, fps: float = FPS, passes_through: bool = False) -> Synthetic:
    """A red ball rolling right along the floor hits a resting blue ball; equal masses exchange velocities.
    ``passes_through``: doctored, the red ball goes through the blue one, which never moves."""
    t = np.arange(t_count) / fps
    y = FLOOR_Y - RADIUS
    v = 90.0
    xa0, xb0 = 20.0, 90.0
    tc = (xb0 - xa0 - 2 * RADIUS) / v
    xa = np.where(t < tc, xa0 + v * t, xa0 + v * tc)
    xb = np.where(t < tc, xb0, xb0 + v * (t - tc))
    if passes_through:
        xa = xa0 + v * t
        xb = np.full(t_count, xb0)
    a = Ball(np.stack([xa, np.full(t_count, y)], 1), np.full(t_count, RADIUS), np.ones(t_count, bool), COLORS["red"])
    b = Ball(np.stack([xb, np.full(t_count, y)], 1), np.full(t_count, RADIUS), np.ones(t_count, bool), COLORS["blue"])
    a.visible &= a.xy[:, 0] < W + RADIUS
    b.visible &= b.xy[:, 0] < W + RADIUS
    frames = draw(background(), [a, b], t_count)
    return Synthetic(frames=frames, fps=fps, audio=clicks([tc], t_count / fps), audio_rate_hz=AUDIO_RATE,
                     balls={"red": a, "blue": b}, contacts_s=[tc], notes={"contact_s": tc})


def two_drops_clip(*, t_count: int = 40, fps: float = FPS, red_first: bool = True,
                   colors: tuple[str, str] = ("red", "blue")) -> Synthetic:
    """A red and a blue ball (or ``colors``) dropped from different heights; the lower one lands first."""
    t = np.arange(t_count) / fps
    lo, hi = 45.0, 15.0
    xy_r, c_r = bounce_path(t, x0=45.0, y0=lo if red_first else hi)
    xy_b, c_b = bounce_path(t, x0=115.0, y0=hi if red_first else lo)
    r = Ball(xy_r, np.full(t_count, RADIUS), np.ones(t_count, bool), COLORS[colors[0]])
    b = Ball(xy_b, np.full(t_count, RADIUS), np.ones(t_count, bool), COLORS[colors[1]])
    frames = draw(background(), [r, b], t_count)
    return Synthetic(frames=frames, fps=fps, audio=clicks(sorted(c_r + c_b), t_count / fps), audio_rate_hz=AUDIO_RATE,
                     balls={"red": r, "blue": b}, contacts_s=sorted(c_r + c_b),
                     notes={"red_contacts_s": c_r, "blue_contacts_s": c_b})


# ------------------------------------------------------------------------------------------------------
# Doctored versions of drop_clip
# ------------------------------------------------------------------------------------------------------


def _redraw(clip: Synthetic, balls: list[Ball]) -> np.ndarray:
    return draw(background(), balls, len(clip.frames))


def teleport(clip: Synthetic, *, at: int = 8, dx_radii: float = 6.0) -> Synthetic:
    """From frame ``at`` on, the ball is shifted ``dx_radii`` radii sideways: a jump between at-1 and at."""
    b = clip.balls["ball"]
    xy = b.xy.copy()
    xy[at:, 0] += dx_radii * RADIUS
    nb = replace(b, xy=xy)
    return replace(clip, frames=_redraw(clip, [nb]), balls={"ball": nb}, doctored_frames=(at - 1, at))


def hover(clip: Synthetic, *, length: int = 12) -> Synthetic:
    """At the apex after the first bounce the ball stops in mid-air for ``length`` frames, then carries on."""
    b = clip.balls["ball"]
    t = clip.times_s
    first = clip.contacts_s[0]
    after = np.flatnonzero(t > first)
    apex = int(after[np.argmin(b.xy[after, 1])])
    idx = np.concatenate([np.arange(apex + 1), np.full(length, apex), np.arange(apex + 1, len(t))])[:len(t)]
    nb = replace(b, xy=b.xy[idx].copy())
    return replace(clip, frames=_redraw(clip, [nb]), balls={"ball": nb}, doctored_frames=(apex, apex + length),
                   audio=None, contacts_s=[])


def pass_through_floor(clip: Synthetic) -> Synthetic:
    """No floor for the ball: it keeps falling through the floor line and out of the bottom of the frame."""
    t = clip.times_s
    b = clip.balls["ball"]
    xy, _ = bounce_path(t, x0=float(b.xy[0, 0]), y0=float(b.xy[0, 1]), vx=25.0, floor=False)
    vis = xy[:, 1] < H + RADIUS
    nb = replace(b, xy=xy, visible=vis)
    below = np.flatnonzero((xy[:, 1] > FLOOR_Y) & vis)
    return replace(clip, frames=_redraw(clip, [nb]), balls={"ball": nb}, contacts_s=[],
                   doctored_frames=(int(below[0]), int(below[-1])), audio=None)


def sink_through_floor(clip: Synthetic, *, at: int = 34, depth_radii: float = 2.0, frames: int = 6,
                       grow: float = 1.0) -> Synthetic:
    """After it has come to rest, the ball moves down through the floor it rests on (drawn over the floor) by
    ``depth_radii`` radii over ``frames`` frames. ``grow`` > 1 makes it swell as it goes, as a ball rolling toward
    the camera would (a correct clip, then)."""
    b = clip.balls["ball"]
    t_count = len(clip.frames)
    ramp = np.clip((np.arange(t_count) - at + 1) / frames, 0.0, 1.0)
    r = b.radius * (1.0 + (grow - 1.0) * ramp)
    xy = b.xy.copy()
    xy[:, 1] += depth_radii * RADIUS * ramp + (r - b.radius)
    nb = replace(b, xy=xy, radius=r)
    return replace(clip, frames=_redraw(clip, [nb]), balls={"ball": nb}, doctored_frames=(at, t_count - 1),
                   audio=None)


def pause_in_fall(clip: Synthetic, *, at: int = 5, length: int = 8) -> Synthetic:
    """The falling ball stops in mid-air at frame ``at`` for ``length`` frames before its first contact, then
    carries on falling."""
    b = clip.balls["ball"]
    t_count = len(clip.frames)
    idx = np.concatenate([np.arange(at + 1), np.full(length, at), np.arange(at + 1, t_count)])[:t_count]
    nb = replace(b, xy=b.xy[idx].copy())
    return replace(clip, frames=_redraw(clip, [nb]), balls={"ball": nb}, doctored_frames=(at, at + length),
                   audio=None, contacts_s=[])


def hold_from_start(clip: Synthetic, *, start: int = 1, length: int = 8, ledge: bool = False) -> Synthetic:
    """The ball is held still at its frame-``start`` place for ``length`` frames, then carries on as dropped (a
    release nothing in view makes). ``ledge``: a grey shelf drawn in every frame right under the held ball (a
    support it could have rested on: the clip then shows what held it)."""
    b = clip.balls["ball"]
    t_count = len(clip.frames)
    idx = np.concatenate([np.arange(start + 1), np.full(length, start), np.arange(start + 1, t_count)])[:t_count]
    nb = replace(b, xy=b.xy[idx].copy())
    bg = background()
    if ledge:
        x, y = b.xy[start]
        top = int(round(y + RADIUS)) + 1
        bg[top:top + 4, int(round(x - 3 * RADIUS)):int(round(x + 3 * RADIUS))] = (90, 90, 95)
    return replace(clip, frames=draw(bg, [nb], t_count), balls={"ball": nb},
                   doctored_frames=(start, start + length), audio=None, contacts_s=[])


def backwards(clip: Synthetic) -> Synthetic:
    """The clip played backwards: the ball rises from where it rested, each rebound higher than the fall before
    it, up to where it was released."""
    b = clip.balls["ball"]
    nb = replace(b, xy=b.xy[::-1].copy(), radius=b.radius[::-1].copy(), visible=b.visible[::-1].copy())
    return replace(clip, frames=clip.frames[::-1].copy(), balls={"ball": nb}, audio=None, contacts_s=[],
                   doctored_frames=(0, len(clip.frames) - 1))


def vanish(clip: Synthetic, *, at: int = 7) -> Synthetic:
    """The ball disappears in mid-air at frame ``at`` and never comes back."""
    b = clip.balls["ball"]
    vis = b.visible.copy()
    vis[at:] = False
    nb = replace(b, visible=vis)
    return replace(clip, frames=_redraw(clip, [nb]), balls={"ball": nb}, doctored_frames=(at, len(vis) - 1),
                   audio=None, contacts_s=[])


def size_morph(clip: Synthetic, *, at: int = 31, ramp: int = 4, hold: int = 4, factor: float = 2.2) -> Synthetic:
    """The (resting) ball swells to ``factor`` x its radius over ``ramp`` frames, holds, and shrinks back."""
    b = clip.balls["ball"]
    r = b.radius.copy()
    prof = np.concatenate([np.linspace(1, factor, ramp + 1)[1:], np.full(hold, factor), np.linspace(factor, 1, ramp + 1)[1:]])
    end = min(at + len(prof), len(r))
    r[at:end] = RADIUS * prof[:end - at]
    xy = b.xy.copy()
    xy[at:end, 1] = FLOOR_Y - r[at:end]  # it stays on the floor
    nb = replace(b, radius=r, xy=xy)
    return replace(clip, frames=_redraw(clip, [nb]), balls={"ball": nb}, doctored_frames=(at, end - 1))


def extra_object(clip: Synthetic, *, at: int = 20, color: str = "red") -> Synthetic:
    """A second ball of the same colour appears from nowhere at frame ``at`` and rests on the floor."""
    t_count = len(clip.frames)
    vis = np.zeros(t_count, bool)
    vis[at:] = True
    extra = Ball(np.tile([80.0, FLOOR_Y - RADIUS], (t_count, 1)), np.full(t_count, RADIUS), vis, COLORS[color])
    balls = {**clip.balls, "extra": extra}
    return replace(clip, frames=_redraw(clip, list(balls.values())), balls=balls, doctored_frames=(at, t_count - 1))


def early_sound(clip: Synthetic, *, lead_s: float = 0.3) -> Synthetic:
    """Every impact sound comes ``lead_s`` seconds before its contact."""
    snd = clicks([c - lead_s for c in clip.contacts_s], len(clip.frames) / clip.fps)
    f = int(np.floor((clip.contacts_s[0] - lead_s) * clip.fps))
    return replace(clip, audio=snd, doctored_frames=(f, int(round(clip.contacts_s[0] * clip.fps))))


def silent(clip: Synthetic) -> Synthetic:
    """The audio track carries only faint noise: no impact sound."""
    return replace(clip, audio=clicks([], len(clip.frames) / clip.fps), doctored_frames=(0, len(clip.frames) - 1))


def banner(clip: Synthetic, text: str, *, start: int = 0, end: int | None = None) -> Synthetic:
    """Draw a white banner with black ``text`` across the top of frames ``start..end``."""
    import cv2

    frames = clip.frames.copy()
    end = len(frames) - 1 if end is None else end
    for k in range(start, end + 1):
        f = frames[k]
        f[2:26, 8:W - 8] = 255
        cv2.putText(f, text, (14, 21), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 2, cv2.LINE_AA)
    return replace(clip, frames=frames, doctored_frames=(start, end))
