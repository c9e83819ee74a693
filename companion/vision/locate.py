"""Find the board in a frame without markers, fix its orientation, and refine its pose.

1. Candidates: large convex quadrilaterals in an edge map of a small copy of the frame.
2. Each candidate is tried as the board's outer edge, the inner edge of its dark frame, or the
   grid's border, in all four rotations; the printed art that tokens never cover (the frame, the
   title, the grid border) is compared with the rectified frame. The title breaks the symmetry:
   the best match fixes row 0. When something hides the title, the corner that holds it can
   still be deduced: if the other three corners are seen plain (no title there), the title is
   under the fourth, the only one not seen plain.
3. The pose is refined by fitting the four edges of the dark frame's inner border to sub-pixel
   precision, then checked once more.

A fixed rig passes the last pose in; it is re-checked cheaply and searched again only when the
board has moved.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from companion.vision.assets import art_name, load_art
from companion.vision.geometry import BoardGeometry, pose_from_corners, project, scale_mm


class VisionError(RuntimeError):
    """The frame cannot be read."""


class BoardNotFoundError(VisionError):
    """No board in the frame (or too little of it is visible)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"no board found: {reason}")


@dataclass(frozen=True)
class LocateConfig:
    """Numbers for the search; see models/reader.yaml."""

    search_width: int = 640
    template_px_per_mm: float = 0.5
    accept_score: float = 0.55
    weak_accept_score: float = 0.4  # enough when the title is plainly seen:
    clear_title_score: float = 0.45  # this clearly (another corner of a board, or a wrong
    clear_title_margin: float = 0.35  # candidate, has shown at most 0.36), and this much
    # better than in any other corner
    recheck_score: float = 0.6
    recheck_move_px: float = 2.0  # a kept pose whose edges moved more is checked against the art
    min_board_fraction: float = 0.15  # of the frame width, at the least
    edge_search_mm: float = 3.0
    edge_samples: int = 48
    min_title_score: float = 0.2  # the title must be seen to tell row 1 from the others,
    min_title_margin: float = 0.15  # and clearly better in one corner than in the others
    plain_detail_below: float = 0.03  # a corner is seen plain with less fine detail than this
    plain_hue_spread_below: float = 6.0  # (share of the contrast), one hue within (thousandths),
    plain_hue_agreement: float = 8.0  # and the same hue as the other plain corners
    # an empty board's title corner, in a font not known, shows this many times the fine
    # detail of any other corner (Locator.orient_by_detail)
    title_detail_apart: float = 3.0
    cover_stands_out: float = 2.0  # a smooth corner near their hue, this many times their
    # detail and hue spread, is under cover


MIN_FRAME_PX = 64  # a frame's shortest side below this holds no board worth searching
# a board partly outside the frame: the share of the art (where tokens never lie) that must be
# in view to compare it, and of the title's corner to look for the title there
MIN_VISIBLE_SHARE = 0.6
MIN_TITLE_SHARE = 0.7


@dataclass(frozen=True)
class BoardPose:
    pose: np.ndarray  # board mm -> image px
    score: float  # template agreement, 0..1
    title: float = 1.0  # how clearly the title corner was seen (orientation), 0..1
    title_margin: float = 1.0  # how much better than in the next best corner
    oriented_by: str = "title"  # or "elimination": three corners seen plain, title under the 4th;
    # or "detail": an empty board, its title corner the one with by far the most fine detail
    edge_blur_mm: float = 0.0  # how wide the frame's sharp inner edge looks (the blurriest side)
    # a board partly outside the frame: the share of rays from the cell centres whose strongest
    # edge lies on a token's rim or a socket's ring (1.0, unmeasured, for a board all in view)
    sockets: float = 1.0

    def corners(self, geometry: BoardGeometry) -> np.ndarray:
        return project(self.pose, geometry.corners())


class Template:
    """The board art seen at low resolution, with the parts tokens and lists may hide masked."""

    def __init__(self, geometry: BoardGeometry, px_per_mm: float, art: Path | None = None,
                 board: np.ndarray | None = None) -> None:
        """``board``: the board's image (BGR, uint8, seen from above) instead of the art's."""
        self.geometry = geometry
        self.ppm = px_per_mm
        size = int(round(geometry.board * px_per_mm))
        if board is None:
            board = (load_art(art_name("board.png", art))[:, :, :3] * 255).astype(np.uint8)
        gray = cv2.cvtColor(board, cv2.COLOR_BGR2GRAY)
        self.image = cv2.resize(gray, (size, size), interpolation=cv2.INTER_AREA).astype(
            np.float32)
        mask = np.ones((size, size), np.uint8)
        r = (geometry.token / 2 + 4) * px_per_mm
        for cx, cy in geometry.centres.reshape(-1, 2):
            cv2.circle(mask, (int(cx * px_per_mm), int(cy * px_per_mm)), int(r), 0, -1)
        # slots beside the grid, where grocery lists or cards may lie
        lo, hi = geometry.grid_outer
        band = 4 * px_per_mm
        inner0, inner1 = int((geometry.frame + 1) * px_per_mm), int((lo - 1) * px_per_mm)
        far0, far1 = int((hi + 1) * px_per_mm), int((geometry.board - geometry.frame - 1)
                                                     * px_per_mm)
        mid0, mid1 = int(lo * px_per_mm + band * 6), int(hi * px_per_mm - band * 6)
        for x0, x1, y0, y1 in ((mid0, mid1, inner0, inner1), (mid0, mid1, far0, far1),
                               (inner0, inner1, mid0, mid1), (far0, far1, mid0, mid1)):
            mask[y0:y1, x0:x1] = 0
        self.mask = mask.astype(bool)
        t = self.image[self.mask]
        self._t = (t - t.mean()) / (t.std() + 1e-6)
        self.size = size
        # the title corner: what tells row 0 from the others
        self.title_box = (geometry.frame + 1, geometry.frame + 2, 72.0, 32.0)  # x0, y0, x1, y1 mm
        x0, y0, x1, y1 = (int(v * px_per_mm * 4) for v in self.title_box)
        big = cv2.resize(gray, (size * 4, size * 4), interpolation=cv2.INTER_AREA)
        title = big[y0:y1, x0:x1].astype(np.float32)
        self._title = (title - title.mean()) / (title.std() + 1e-6)

    def score(self, gray: np.ndarray, pose: np.ndarray) -> float:
        """Normalised correlation of the rectified frame with the art (1 = identical), over
        the part of the board the frame shows; 0 when it shows under MIN_VISIBLE_SHARE of the
        art compared."""
        to_rect = scale_mm(self.ppm) @ np.linalg.inv(pose)
        warped = cv2.warpPerspective(gray, to_rect, (self.size, self.size),
                                     flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
        if warped.ndim == 3:  # a colour frame: convert only the small copy
            warped = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY)
        seen = _seen_mask(gray.shape[:2], pose, self.geometry.board, to_rect,
                          (self.size, self.size))
        if seen is None:  # all in view: the art's standardised values, made once
            v, t = warped[self.mask].astype(np.float32), self._t
        else:
            both = self.mask & seen
            if both.sum() < MIN_VISIBLE_SHARE * self.mask.sum():
                return 0.0
            v, t = warped[both].astype(np.float32), self.image[both]
            t = (t - t.mean()) / (t.std() + 1e-6)
        sd = v.std()
        if sd < 1e-3:
            return 0.0
        return float(np.dot((v - v.mean()) / sd, t) / len(v))


    def _title_patch(self, image: np.ndarray, pose: np.ndarray) -> np.ndarray:
        """The title corner of this pose, rectified at the title's resolution (grey or colour,
        as the image)."""
        x0, y0, _, _ = self.title_box
        to_rect = scale_mm(self.ppm * 4, (x0, y0)) @ np.linalg.inv(pose)
        h, w = self._title.shape
        return cv2.warpPerspective(image, to_rect, (w, h), flags=cv2.INTER_AREA,
                                   borderMode=cv2.BORDER_REPLICATE)

    def _title_corner(self, gray: np.ndarray, pose: np.ndarray) -> np.ndarray:
        warped = self._title_patch(gray, pose)
        if warped.ndim == 3:  # a colour frame: convert only the small copy
            warped = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY)
        return warped.astype(np.float32)

    def title_in_view(self, frame_shape: tuple[int, ...], pose: np.ndarray) -> bool:
        """The whole title corner of this pose lies in the frame."""
        x0, y0, x1, y1 = self.title_box
        box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
        return bool(in_view(project(pose, box), frame_shape, 1.0).all())

    def title_score(self, gray: np.ndarray, pose: np.ndarray) -> float:
        """Correlation of the title corner with the art's title; NaN when the frame shows under
        MIN_TITLE_SHARE of it (the title may be there, unseen)."""
        v = self._title_corner(gray, pose)
        x0, y0, _, _ = self.title_box
        h, w = self._title.shape
        seen = _seen_mask(gray.shape[:2], pose, self.geometry.board,
                          scale_mm(self.ppm * 4, (x0, y0)) @ np.linalg.inv(pose), (w, h))
        if seen is None:
            t = self._title
        else:
            if seen.mean() < MIN_TITLE_SHARE:
                return float("nan")
            v, t = v[seen], self._title[seen]
            t = (t - t.mean()) / (t.std() + 1e-6)
        sd = v.std()
        if sd < 1e-3:
            return 0.0
        return float(np.mean((v - v.mean()) / sd * t))

    def contrast(self, gray: np.ndarray, pose: np.ndarray) -> float:
        """How much brighter the plain board is than its dark printed frame, in grey levels."""
        to_rect = scale_mm(self.ppm) @ np.linalg.inv(pose)
        warped = cv2.warpPerspective(gray, to_rect, (self.size, self.size),
                                     flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
        f = int(self.geometry.frame * self.ppm)
        band = np.concatenate([warped[1:f - 1].ravel(), warped[-f + 1:-1].ravel()])
        inner = warped[f + 2:int(self.geometry.grid_outer[0] * self.ppm) - 2, f + 2:-f - 2]
        return float(np.median(inner) - np.median(band))

    def clutter(self, frame: np.ndarray, pose: np.ndarray, contrast: float
                ) -> tuple[float, float, np.ndarray]:
        """What the title corner of this pose shows besides plain board: fine detail (text, an
        edge) once soft light and shadow are blurred out, as a share of the board's contrast;
        the spread of its hue, in thousandths (a hand or card over part of it mixes two); its
        mean hue (thousandths of B, G, R)."""
        patch = self._title_patch(frame, pose)
        h, w = patch.shape[:2]
        px = patch.reshape(-1, 3).astype(np.float32)
        light = px.sum(axis=1)
        chroma = px / np.maximum(light, 1.0)[:, None]  # unchanged by shade and shadow
        light = light.reshape(h, w)
        fine = float(np.std(light - cv2.GaussianBlur(light, (0, 0), 3))) / max(3 * contrast, 1.0)
        spread = 1000 * float(chroma.std(axis=0).max())
        return fine, spread, 1000 * chroma.mean(axis=0)


def in_view(points_px: np.ndarray, frame_shape: tuple[int, ...], margin_px: float = 0.0
            ) -> np.ndarray:
    """Which image points (n, 2) lie inside the frame, ``margin_px`` clear of its edges."""
    h, w = frame_shape[:2]
    p = np.asarray(points_px, dtype=np.float64).reshape(-1, 2)
    return ((p[:, 0] >= margin_px) & (p[:, 1] >= margin_px)
            & (p[:, 0] <= w - 1 - margin_px) & (p[:, 1] <= h - 1 - margin_px))


def _seen_mask(frame_shape: tuple[int, ...], pose: np.ndarray, board_mm: float,
               to_rect: np.ndarray, size: tuple[int, int]) -> np.ndarray | None:
    """Which pixels of a rectified view (``to_rect``: image -> view, ``size``: w, h) the frame
    shows, a pixel clear of its edge; None when the whole board is in view (the usual case,
    decided from its four corners)."""
    corners = np.array([[0, 0], [board_mm, 0], [board_mm, board_mm], [0, board_mm]], float)
    if in_view(project(pose, corners), frame_shape, 1.0).all():
        return None
    return cv2.warpPerspective(_inner_frame(frame_shape[0], frame_shape[1]), to_rect, size,
                               flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT,
                               borderValue=0).astype(bool)


@lru_cache(maxsize=4)
def _inner_frame(h: int, w: int) -> np.ndarray:
    """A frame's pixels a pixel clear of its edge (1), the edge (0)."""
    mask = np.zeros((h, w), np.uint8)
    mask[1:-1, 1:-1] = 1
    return mask


def rotate_mm(k: int, board: float) -> np.ndarray:
    """Board mm -> board mm, turned k quarter turns about the centre."""
    c = board / 2
    cos, sin = [(1, 0), (0, 1), (-1, 0), (0, -1)][k % 4]
    t = np.array([[1, 0, c], [0, 1, c], [0, 0, 1]], np.float64)
    r = np.array([[cos, -sin, 0], [sin, cos, 0], [0, 0, 1]], np.float64)
    t_inv = np.array([[1, 0, -c], [0, 1, -c], [0, 0, 1]], np.float64)
    return t @ r @ t_inv


_ROTATIONS = [np.roll(np.arange(4), -k) for k in range(4)]
# the cells of a board partly outside the frame (sockets_seen): rays from each centre, searched
# from 8 to 22 mm out; a token's rim lies at 15 mm, up to 2.5 mm more or less where it lies off
# centre, and the socket's printed ring at 16.25 mm; the true poses of 100 rendered boards
# (overflowing, or under a hand) showed 0.47-0.73 of their rays there, poses fitted on a slot's
# line 0.26
SOCKET_RAYS = 32
SOCKET_RADII = np.arange(8.0, 22.01, 0.5)
SOCKET_RIM_MM = (13.5, 18.0)
MIN_SOCKETS_SEEN = 0.42
GRID_SEARCH_MM = 5.0  # the grid border's search, at most: a side slot's line lies 6.5 mm out
WIDER_SEARCH = 4.0  # the last resort's first edge search, in multiples of edge_search_mm
WIDER_CANDIDATES = 6
FURTHER_CANDIDATES = 6  # distinct runners-up finished when the leaders do not convince
DISTINCT_SHARE = 0.1  # candidates whose corners all lie this close (share of the board's
# side) to a finished one's are the same outline
LARGEST_SHARE = 0.6  # outlines larger than this share of the frame are left to the spanning stage
# the last resort's outlines, pooled when no candidate so far could be the board: an arm along
# the board's diagonal cuts its printed frame into two pieces, each outlined up to three times
# (by its edges, as dark and as light), besides the arm's and the table's
LAST_RESORT_OUTLINES = 8
# then, still with nothing, outlines in colour (Lab's red-green and blue-yellow axes, each
# stretched to the full range): a checked tablecloth whose squares have the board's greys splits
# its outline among the table's, though the board's tan stands out from the cloth's colours
COLOUR_CHANNELS = (1, 2)
STAGES = ("quick", "thorough", "pooled", "spanning", "last resort", "colour")
LATE_STAGES = ("last resort", "colour")


class Locator:
    """Finds the board and its pose in frames; create once, use for every frame."""

    _frame_shape: tuple[int, int] = (1080, 1920)

    def __init__(self, geometry: BoardGeometry | None = None,
                 config: LocateConfig | None = None, art: Path | None = None,
                 board: np.ndarray | None = None, empty_board: bool = False) -> None:
        """``art``: an enrolled edition's art folder (its board.png; the bundled art when
        None); ``board``: a photo of the board, seen from above, to look for instead;
        ``empty_board``: the frames show the board empty and uncovered, of an edition whose
        title may be printed in another font (enrollment's first photo)."""
        self.geometry = geometry or BoardGeometry.from_components()
        self.empty_board = empty_board
        self.config = config or LocateConfig()
        self.template = Template(self.geometry, self.config.template_px_per_mm, art, board)
        g = self.geometry
        lo, hi = g.grid_outer
        self._grid_square = np.array([[lo, lo], [hi, lo], [hi, hi], [lo, hi]], np.float64)
        self._hypotheses = [g.corners(0.0), g.corners(g.frame), self._grid_square]
        # the rims of the four corner cells' tokens: all in view when every cell is
        angles = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        rim = np.stack([np.cos(angles), np.sin(angles)], axis=1) * g.token / 2
        self._corner_cells = g.centres[[0, 0, -1, -1], [0, -1, -1, 0]]
        self._rims = (self._corner_cells[:, None, :] + rim[None]).reshape(-1, 2)
        self._edge_grids: dict[tuple[bytes, float, int], tuple[np.ndarray, ...]] = {}
        self._rays: np.ndarray | None = None  # where sockets_seen samples (mm)

    # --- the search -----------------------------------------------------------------------
    def locate(self, frame: np.ndarray, previous: BoardPose | None = None) -> BoardPose:
        """The board's pose in a BGR frame.

        :raises BoardNotFoundError: if no board is visible.
        """
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
            raise VisionError("the frame is not a colour image; check the camera or the file")
        if min(frame.shape[:2]) < MIN_FRAME_PX:
            h, w = frame.shape[:2]
            raise VisionError(f"the frame is {w}x{h} px, too small to find a board in: at "
                              f"least {MIN_FRAME_PX} px a side; a camera gives 1280x720 or "
                              "more")
        if previous is not None:  # a fixed rig: keep the pose while the board stays
            kept = self._keep(frame, previous)
            if kept is not None:
                return kept
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        self._frame_shape = gray.shape[:2]
        small, scale = self._small(gray)
        contours = self._contours(small)
        sized: list[tuple[float, np.ndarray]] = []  # the costly stages' outlines, found once
        scored: list[BoardPose] = []
        finished: dict[int, BoardPose] = {}  # refined and oriented, by candidate
        stages = list(STAGES)  # those not run yet

        def finish(candidate: BoardPose) -> BoardPose:
            if id(candidate) not in finished:
                finished[id(candidate)] = self._finish(gray, candidate.pose)
            return finished[id(candidate)]

        # boards whose border leaves the frame: dearer to compare, and on most frames misfits
        # of a board in view, so compared only once the stages before the late ones (or all)
        # have found nothing that is clearly the board
        overflowing: list[np.ndarray] = []

        def weigh(poses: list[np.ndarray]) -> bool:
            """Score the poses; True if the best so far is clearly the board, as found or once
            its edges are fitted."""
            scored.extend(BoardPose(pose, self.template.score(gray, pose)) for pose in poses)
            scored.sort(key=lambda b: -b.score)
            return bool(scored) and (self._clearly_board(scored[0]) or (
                self._may_be_board(scored[0]) and self._clearly_board(finish(scored[0]))))

        def weigh_overflowing() -> bool:
            """Weigh the boards partly outside the frame, unless the best so far convinces and
            shows its cells where it puts them (an overflowing board's misfit in view may
            agree with the art and show a title, but not the cells)."""
            if scored and self._may_be_board(scored[0]):
                best = finish(scored[0])
                if self._convincing(best) and \
                        self.sockets_seen(gray, best.pose) >= MIN_SOCKETS_SEEN:
                    overflowing.clear()
            poses, overflowing[:] = list(overflowing), []
            return bool(poses) and weigh(poses)

        def search(late_stages_anyway: bool) -> None:
            """Run the stages left, each costlier than the one before, until one gives a
            candidate that is clearly the board. The late stages run only when nothing so far
            may be the board, or ``late_stages_anyway``."""
            nonlocal sized
            while stages:
                if stages[0] in LATE_STAGES:
                    if weigh_overflowing():
                        return
                    if not late_stages_anyway and scored and self._may_be_board(scored[0]):
                        return  # something so far may be the board
                stage = stages.pop(0)
                if stage != "quick" and not sized:
                    sized = self._sized(contours)
                quads = (self._colour_quads(frame) if stage == "colour" else
                         self._quads(stage, contours, sized, small.size))
                inside, beyond = self._candidates(quads, scale)
                overflowing.extend(beyond)
                if weigh(inside):
                    return
            weigh_overflowing()

        search(late_stages_anyway=False)
        try:
            return self._best_found(frame, gray, scored, finished, finish)
        except BoardNotFoundError as exc:
            if not stages:
                raise self._outside(exc, scored, gray.shape) from None
        # what may have been the board was refused: a pattern on the table can outscore a
        # board whose outline only the late stages find (bench set 794000, scene 236: an arm
        # across the title side, a wrong outline at 0.44 and the board's own found by none)
        search(late_stages_anyway=True)
        try:
            return self._best_found(frame, gray, scored, finished, finish)
        except BoardNotFoundError as exc:
            raise self._outside(exc, scored, gray.shape) from None

    def _outside(self, refusal: BoardNotFoundError, scored: list[BoardPose],
                 frame_shape: tuple[int, ...]) -> BoardNotFoundError:
        """The refusal, saying first that a corner of the board lies outside the frame when the
        best candidate puts one there: what cannot be seen cannot be verified."""
        if not scored or not self._may_be_board(scored[0]):
            return refusal
        corners = project(scored[0].pose, self.geometry.corners())
        h, w = frame_shape[:2]
        past = {"left": -corners[:, 0], "top": -corners[:, 1],
                "right": corners[:, 0] - (w - 1), "bottom": corners[:, 1] - (h - 1)}
        edge = max(past, key=lambda e: past[e].max())
        if past[edge].max() <= 0:
            return refusal
        return BoardNotFoundError(
            f"a corner of the board seems to lie outside the frame, past its {edge} edge, so "
            "the board cannot be verified: move the camera or the board so that the whole "
            "board is in view")

    def _best_found(self, frame: np.ndarray, gray: np.ndarray, scored: list[BoardPose],
                    finished: dict[int, BoardPose], finish: Callable[[BoardPose], BoardPose]
                    ) -> BoardPose:
        """Of the candidates scored (best first), the board, refined and oriented.

        :raises BoardNotFoundError: if none is accepted as the board.
        """
        if not scored or not self._may_be_board(scored[0]):
            raise BoardNotFoundError("no quadrilateral in the frame looks like the board")
        refined = finish(scored[0])
        if not self._clearly_board(refined):  # the runners-up may fit better
            refined = max((finish(b) for b in scored[:3]), key=lambda b: b.score)
        if not self._convincing(refined):
            refined = self._search_wider(gray, scored) or refined
        if not self._convincing(refined):
            further = self._search_further([b for b in scored if id(b) in finished],
                                           [b for b in scored if id(b) not in finished], finish)
            if further is not None and further.score > refined.score:
                refined = further
        if not self._shows_title(refined) or self._faint_title_on_plain_board(frame, gray,
                                                                                refined):
            deduced, how = self.orient_by_elimination(frame, gray, refined.pose), "elimination"
            if deduced is None and self.empty_board:
                deduced, how = self.orient_by_detail(frame, gray, refined.pose), "detail"
            if deduced is None:
                return self._plainly_titled(
                    finished.values(), "the title corner is hidden (a hand?) and another corner "
                    "is not seen plain, so row 1 cannot be told from the others")
            refined = replace(refined, pose=deduced, oriented_by=how)
        if not self._accepted(refined):
            return self._plainly_titled(
                finished.values(),
                f"the best match ({refined.score:.2f}) is too weak to be the board")
        return refined

    def _may_be_board(self, found: BoardPose) -> bool:
        """Agrees with the art enough to be weighed as the board (refined and oriented)."""
        return found.score >= self.config.accept_score * 0.8

    def _clearly_board(self, found: BoardPose) -> bool:
        """Agrees with the art so well that no other candidate need be looked for."""
        return found.score >= self.config.accept_score + 0.25

    def _plainly_titled(self, finished: Iterable[BoardPose], refusal: str) -> BoardPose:
        """Of the candidates refined and oriented, the best whose title is plainly seen and
        that is accepted: taken when the best match is refused (for ``refusal``, raised if
        there is none). An arm and a glare over the board can leave its true pose agreeing less
        with the art than a pattern elsewhere in the frame, which shows no title (bench set
        791000, scene 178: 0.48 with the title 0.92 seen, against 0.52 with none). Only a
        plainly seen title may overrule a better match: a misfit of a board whose title a hand
        hides, one side on a slot's line, can show a title by chance (795000:400: 0.23, 0.28
        better than elsewhere, against the true pose's 0.87 with none seen)."""
        shown = [b for b in finished if self._title_plain(b) and self._accepted(b)]
        if not shown:
            raise BoardNotFoundError(refusal)
        return max(shown, key=lambda b: b.score)

    def _faint_title_on_plain_board(self, frame: np.ndarray, gray: np.ndarray,
                                    found: BoardPose) -> bool:
        """A title seen only faintly (not plainly) is a hypothesis its corner must bear out:
        the title's print is fine detail, so a corner seen plain board does not hold it, and
        the faint title was chance. (Bench set 796000, scene 456, on OpenCV 4.11: an arm over
        the title corner, and the opposite corner, plain board, scored 0.24 as the title, 0.16
        better than elsewhere: the board was read upside down.)"""
        if self._title_plain(found) or not self.template.title_in_view(gray.shape, found.pose):
            return False
        contrast = self.template.contrast(gray, found.pose)
        return self._seen_plain(self.template.clutter(frame, found.pose, contrast))

    def _seen_plain(self, look: tuple[float, float, np.ndarray | None]) -> bool:
        """A corner's look (fine detail, hue spread, hue) is smooth, as plain board is."""
        detail, spread, _ = look
        return (detail < self.config.plain_detail_below
                and spread < self.config.plain_hue_spread_below)

    def _title_plain(self, found: BoardPose) -> bool:
        """The title is plainly seen: ``clear_title_score``, and ``clear_title_margin`` better
        than in any other corner."""
        return (found.oriented_by == "title" and found.title >= self.config.clear_title_score
                and found.title_margin >= self.config.clear_title_margin)

    def _accepted(self, found: BoardPose) -> bool:
        """Agrees with the art enough to be the board: ``accept_score``, or, with the title
        plainly seen (an arm and a glare over much of the board leave little else of the art
        to agree with; or a checked tablecloth's squares seen through a glare and a shadow,
        bench set 793000, scene 45: 0.52, the title seen 0.47 and 0.48 better than
        elsewhere), ``weak_accept_score``."""
        if found.sockets < MIN_SOCKETS_SEEN:
            return False
        return found.score >= self.config.accept_score or (
            found.score >= self.config.weak_accept_score and self._title_plain(found))

    def _keep(self, frame: np.ndarray, previous: BoardPose) -> BoardPose | None:
        """The last pose, its edges fitted again; None if the board moved (search again).

        The frame's edges found where they were (within ``recheck_move_px``) mean the board is
        still there; otherwise the pose must still agree with the art. Either way the title is
        looked for: a board turned a quarter turn in place has the same edges, but its title in
        another corner. Under a hand the title cannot be seen, and the orientation is kept.
        """
        cfg = self.config
        fitted, blur = self._fit_pose(frame, previous.pose, cfg.edge_search_mm,
                                      cfg.edge_samples // 2)
        pose = previous.pose if fitted is None else fitted
        score = previous.score
        if fitted is None or _moved_px(fitted, previous.pose, self.geometry) > cfg.recheck_move_px:
            score = self.template.score(frame, pose)
            if score < cfg.recheck_score:
                return None
        title = self.template.title_score(frame, pose)
        if title < cfg.min_title_score:
            _, best, margin = self.orient(frame, pose)
            if best >= cfg.min_title_score and margin >= cfg.min_title_margin:
                return None  # the title is clearly in another corner: the board was turned
        return replace(previous, pose=pose, score=score, edge_blur_mm=blur)

    def _small(self, image: np.ndarray) -> tuple[np.ndarray, float]:
        """The image (grey, or colour) at the search's width, smoothed; and the scale."""
        h, w = image.shape[:2]
        scale = self.config.search_width / w
        small = cv2.resize(image, (self.config.search_width, int(round(h * scale))),
                           interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (5, 5), 0), scale

    def _colour_quads(self, frame: np.ndarray) -> list[np.ndarray]:
        """The quick and thorough stages' quadrilaterals on outlines in colour (COLOUR_CHANNELS
        of Lab, each stretched to the full range), in the small frame's pixels."""
        lab = cv2.cvtColor(self._small(frame)[0], cv2.COLOR_BGR2LAB)
        quads: list[np.ndarray] = []
        for channel in COLOUR_CHANNELS:
            stretched = cv2.normalize(lab[:, :, channel], None, 0, 255, cv2.NORM_MINMAX)
            contours = self._contours(stretched)
            sized = self._sized(contours)
            for stage in ("quick", "thorough"):
                quads += self._quads(stage, contours, sized, stretched.size)
        return quads

    def _contours(self, small: np.ndarray) -> list[np.ndarray]:
        """Large outlines from an edge map and from dark and light regions."""
        median = float(np.median(small))
        edges = cv2.Canny(small, max(10, 0.4 * median), max(30, 1.0 * median))
        edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
        # every outline point is kept: the thorough pass fits lines to straight runs by counting
        # points on them, which a compressed outline (two points a run) would starve
        found = list(cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)[0])
        otsu, _ = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        for mask in (small < otsu, small >= otsu):
            m = cv2.morphologyEx(mask.astype(np.uint8) * 255, cv2.MORPH_OPEN,
                                 np.ones((3, 3), np.uint8))
            found += list(cv2.findContours(m, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)[0])
        min_side = self.config.min_board_fraction * self.config.search_width * 0.3
        return [c for c in found if cv2.arcLength(c, True) >= 4 * min_side]

    def _sized(self, contours: list[np.ndarray]) -> list[tuple[float, np.ndarray]]:
        """The outlines with their hull areas, largest first."""
        sized = [(cv2.contourArea(cv2.convexHull(c)), c) for c in contours]
        return sorted(sized, key=lambda t: -t[0])

    def _quads(self, stage: str, contours: list[np.ndarray],
               sized: list[tuple[float, np.ndarray]], small_area: int) -> list[np.ndarray]:
        """Quadrilaterals in the small frame, by stage.

        The quick stage takes each outline's convex hull; the thorough stage, for boards whose
        outline a hand or arm breaks, fits straight lines to each of the five largest outlines,
        and the pooled stage to them together (an arm across the board cuts it in two); the
        spanning stage to each outline as large as the frame (a checked tablecloth whose dark
        squares touch the board's dark frame joins them into one); the last resort, when nothing
        so far could be the board, to the LAST_RESORT_OUTLINES largest together (an arm along
        the diagonal leaves two pieces of two sides each, one of them smaller than the table's
        blotches). Each tries every quadrilateral that two pairs of lines make, or three sides
        completed into a square.
        """
        min_side = self.config.min_board_fraction * self.config.search_width * 0.3
        # the outlines smaller than the frame, largest first; those larger go to the spanning stage
        fitting = [t for t in sized if t[0] <= LARGEST_SHARE * small_area]
        largest = fitting[:5]
        quads: list[np.ndarray] = []
        if stage == "quick":
            for contour in contours:
                hull = cv2.convexHull(contour)
                if cv2.contourArea(hull) < min_side ** 2:
                    continue
                approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
                if len(approx) == 4 and cv2.isContourConvex(approx):
                    quads.append(approx.reshape(4, 2).astype(np.float64))
        elif stage == "thorough":
            for area, contour in largest:
                if area >= min_side ** 2:
                    quads += _line_quads(contour.reshape(-1, 2).astype(np.float64), min_side)
        elif stage == "pooled" and largest:  # an arm across the board cuts its outline in two
            pooled = np.concatenate([c.reshape(-1, 2) for _, c in largest]).astype(np.float64)
            quads += _line_quads(pooled, min_side, lines_wanted=12)
        elif stage == "last resort" and len(fitting) > len(largest):
            pooled = np.concatenate([c.reshape(-1, 2) for _, c in
                                     fitting[:LAST_RESORT_OUTLINES]]).astype(np.float64)
            quads += _line_quads(pooled, min_side, lines_wanted=12)
        elif stage == "spanning":  # a patterned table's outlines joined to the board's
            for area, contour in sized:
                if area > LARGEST_SHARE * small_area:
                    quads += _line_quads(contour.reshape(-1, 2).astype(np.float64), min_side,
                                         lines_wanted=12)
        return quads

    def _candidates(self, quads: list[np.ndarray], scale: float
                    ) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Board poses to try: each distinct quadrilateral (small-frame pixels) as each of the
        three printed squares, kept if the board then looks plausible and every cell lies in
        the frame: those whose whole board lies in the frame, and those whose border leaves
        it."""
        unique: list[np.ndarray] = []
        seen: set[tuple[int, ...]] = set()
        for quad in quads:
            if not np.all(np.isfinite(quad)):
                continue
            key = tuple(np.round(_clockwise(quad) / 4).astype(int).ravel())
            if key not in seen:
                seen.add(key)
                unique.append(quad)
        inside: list[np.ndarray] = []
        overflowing: list[np.ndarray] = []
        h, w = self._frame_shape
        slack = 0.005 * w
        for quad in unique:
            ordered = _clockwise(quad / scale)
            for corners_mm in self._hypotheses:
                pose = pose_from_corners(ordered, corners_mm)
                board = project(pose, self.geometry.corners())
                if not np.all(np.isfinite(board)):
                    continue
                if (board[:, 0].min() >= -slack and board[:, 1].min() >= -slack
                        and board[:, 0].max() <= w + slack and board[:, 1].max() <= h + slack):
                    if _plausible(board, w, h, self.config):
                        inside.append(pose)
                elif in_view(project(pose, self._corner_cells), (h, w), -slack).all() and \
                        _plausible(board, w, h, self.config) and \
                        in_view(project(pose, self._rims), (h, w), -slack).all():
                    overflowing.append(pose)  # the cells in the frame, the border leaving it
        return inside, overflowing

    def _shows_title(self, found: BoardPose) -> bool:
        """The title is seen, and clearly better in one corner than in the other three."""
        return (found.title >= self.config.min_title_score
                and found.title_margin >= self.config.min_title_margin)

    def _convincing(self, found: BoardPose) -> bool:
        """Agrees with the art and shows the title (and, partly out of view, its cells)."""
        return (found.score >= self.config.accept_score and self._shows_title(found)
                and found.sockets >= MIN_SOCKETS_SEEN)

    def _search_wider(self, gray: np.ndarray, scored: list[BoardPose]) -> BoardPose | None:
        """When the best candidates, refined, are not convincing: a shadow or glare across the
        board's outline can put every candidate's corners 15-25 px off, beyond the refinement's
        reach. Refine the leading WIDER_CANDIDATES again from a search WIDER_SEARCH times wider,
        and keep the best that is convincing (None if none is)."""
        wide = self.config.edge_search_mm * WIDER_SEARCH
        found = [self._finish(gray, self._refine(gray, b.pose, wide, score=False).pose)
                 for b in scored[:WIDER_CANDIDATES]]
        found = [b for b in found if self._convincing(b)]
        return max(found, key=lambda b: b.score) if found else None

    def _search_further(self, tried: list[BoardPose], rest: list[BoardPose],
                        finish: Callable[[BoardPose], BoardPose]) -> BoardPose | None:
        """When the leaders (tried: finished already) do not convince: on a busy table,
        outlines of its pattern can outscore the board's own, found a few pixels off, until
        refined. Finish the next FURTHER_CANDIDATES of the rest (best first) that are not the
        same outline as one tried, and keep the best that is convincing (None if none is)."""
        g = self.geometry
        seen = [project(b.pose, g.corners()) for b in tried]
        found = []
        for candidate in rest:
            if len(seen) >= len(tried) + FURTHER_CANDIDATES:
                break
            corners = project(candidate.pose, g.corners())
            side = float(np.linalg.norm(corners[1] - corners[0]))
            if any(_same_outline(corners, other, DISTINCT_SHARE * side) for other in seen):
                continue
            seen.append(corners)
            done = finish(candidate)
            if self._convincing(done):
                found.append(done)
        return max(found, key=lambda b: b.score) if found else None

    def _finish(self, gray: np.ndarray, pose: np.ndarray) -> BoardPose:
        """Refine the edges (orientation-free), then turn the pose so the title is in row 0.
        A board partly outside the frame is also checked where its cells should be."""
        refined = self.refine(gray, pose)
        oriented, title, margin = self.orient(gray, refined.pose)
        sockets = 1.0
        if refined.score < self.config.accept_score or not in_view(
                project(oriented, self.geometry.corners()), gray.shape, 1.0).all():
            sockets = self.sockets_seen(gray, oriented)
        return replace(refined, pose=oriented, title=title, title_margin=margin,
                       sockets=sockets)

    def sockets_seen(self, gray: np.ndarray, pose: np.ndarray) -> float:
        """How plainly the 25 cells are where the pose puts them: along SOCKET_RAYS rays from
        each cell's centre, the share whose strongest edge lies on a token's rim or its
        socket's ring (SOCKET_RIM_MM; by chance about a third, as wide a share of the radii
        searched). The border can be fitted on wrong lines (a slot's) where part of it is
        outside the frame; the cells, always in view, then show it."""
        g = self.geometry
        if self._rays is None:
            angles = np.linspace(0, 2 * np.pi, SOCKET_RAYS, endpoint=False)
            rays = (np.stack([np.cos(angles), np.sin(angles)], axis=1)[None, :, None, :]
                    * SOCKET_RADII[None, None, :, None])
            self._rays = (g.centres.reshape(-1, 1, 1, 2) + rays).reshape(-1, 2)
        px = project(pose, self._rays).astype(np.float32).reshape(25 * SOCKET_RAYS, -1, 2)
        if gray.ndim == 3:
            gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
        values = cv2.remap(gray, px[..., 0], px[..., 1], cv2.INTER_LINEAR).astype(np.float32)
        strongest = SOCKET_RADII[1:-1][np.argmax(np.abs(values[:, 2:] - values[:, :-2]), axis=1)]
        lo, hi = SOCKET_RIM_MM
        return float(np.mean((strongest >= lo) & (strongest <= hi)))

    def orient(self, gray: np.ndarray, pose: np.ndarray) -> tuple[np.ndarray, float, float]:
        """Of the four quarter turns of a pose, the one that puts the title in its corner; how
        well the title is seen there, and how much better than in the next best corner."""
        turns = [pose @ rotate_mm(k, self.geometry.board) for k in range(4)]
        scores = [self.template.title_score(gray, t) for t in turns]
        seen = sorted((k for k in range(4) if np.isfinite(scores[k])), key=lambda k: -scores[k])
        if not seen:
            return pose, 0.0, 0.0
        best = seen[0]
        margin = scores[best] - (scores[seen[1]] if len(seen) > 1 else 0.0)
        if len(seen) < 4 and scores[best] < self.config.clear_title_score:
            margin = 0.0  # the title may be in the corner out of view: only a plain one counts
        return turns[best], float(scores[best]), float(margin)

    def orient_by_elimination(self, frame: np.ndarray, gray: np.ndarray, pose: np.ndarray
                              ) -> np.ndarray | None:
        """The quarter turn that puts the title under the one corner not seen plain board, when
        the other three are: no fine detail, one hue throughout, the same hue in all three (so
        none of them holds the title). A corner under smooth cover (a palm, a card) may look
        plain but has another hue, or, of a hue near the board's (skin over a tan board), at
        least its edge: then it stands apart from the other three by ``plain_hue_agreement``
        and shows ``cover_stands_out`` times their largest detail and hue spread (bench set
        796000, scenes 3 and 456: 12 and 15 from their hue, 5x their detail, 3-4x their
        spread). None if no single corner is left."""
        cfg = self.config
        contrast = self.template.contrast(gray, pose)
        turns = [pose @ rotate_mm(k, self.geometry.board) for k in range(4)]
        # a title corner out of view is not seen plain: it may hold the title
        looks = [self.template.clutter(frame, turn, contrast)
                 if self.template.title_in_view(gray.shape, turn) else (np.inf, np.inf, None)
                 for turn in turns]
        smooth = [k for k, look in enumerate(looks) if self._seen_plain(look)]
        left = []
        for three in ([smooth] if len(smooth) == 3 else
                      [[k for k in smooth if k != out] for out in smooth] if len(smooth) == 4
                      else []):
            together = np.array([looks[k][2] for k in three])
            if np.ptp(together, axis=0).max() >= cfg.plain_hue_agreement:
                continue
            (fourth,) = {0, 1, 2, 3} - set(three)
            if fourth in smooth and not self._covered_smoothly(
                    looks[fourth], [looks[k] for k in three]):
                continue  # smooth and nearly the board's hue: not clearly cover
            left.append(fourth)
        return turns[left[0]] if len(left) == 1 else None

    def orient_by_detail(self, frame: np.ndarray, gray: np.ndarray, pose: np.ndarray
                         ) -> np.ndarray | None:
        """On an empty, uncovered board (``empty_board``), the quarter turn that puts the title
        under the corner with the most fine detail, when it shows ``title_detail_apart`` times
        as much as any other corner: a title in a font the reader does not know is still
        print, and the other corners' light (a glare, a shadow's edge) is not fine detail.
        None if no corner stands out so."""
        contrast = self.template.contrast(gray, pose)
        turns = [pose @ rotate_mm(k, self.geometry.board) for k in range(4)]
        if not all(self.template.title_in_view(gray.shape, turn) for turn in turns):
            return None
        detail = [self.template.clutter(frame, turn, contrast)[0] for turn in turns]
        first, second = sorted(range(4), key=lambda k: -detail[k])[:2]
        if detail[first] < self.config.title_detail_apart * detail[second]:
            return None
        return turns[first]

    def _covered_smoothly(self, corner: tuple[float, float, np.ndarray],
                          plain: list[tuple[float, float, np.ndarray]]) -> bool:
        """A smooth corner (detail, hue spread, hue) is under cover rather than plain board
        like the ``plain`` three: its hue is twice ``plain_hue_agreement`` from theirs, or
        once and it shows its cover's edge (``cover_stands_out`` times their detail and
        spread)."""
        cfg = self.config
        off_hue = np.abs(corner[2] - np.mean([p[2] for p in plain], axis=0)).max()
        if off_hue >= 2 * cfg.plain_hue_agreement:
            return True
        stands_out = cfg.cover_stands_out
        return (off_hue >= cfg.plain_hue_agreement
                and corner[0] >= stands_out * max(p[0] for p in plain)
                and corner[1] >= stands_out * max(p[1] for p in plain))

    # --- refinement -------------------------------------------------------------------------
    def refine(self, gray: np.ndarray, pose: np.ndarray) -> BoardPose:
        """Fit the four edges of the frame's inner border (dark outside, light inside): first
        searching wide, then close."""
        first = self._refine(gray, pose, self.config.edge_search_mm * 2.5)
        return self._refine(gray, first.pose, self.config.edge_search_mm)

    def _refine(self, gray: np.ndarray, pose: np.ndarray, search_mm: float, *,
                score: bool = True, samples: int | None = None) -> BoardPose:
        """One pass of edge fitting; the refined pose scored against the art (or, with
        ``score=False``, unscored: the caller has checked the pose already)."""
        refined, blur = self._fit_pose(gray, pose, search_mm,
                                       samples or self.config.edge_samples)
        best = pose if refined is None else refined
        return BoardPose(best, self.template.score(gray, best) if score else float("nan"),
                         edge_blur_mm=blur)

    def _fit_pose(self, gray: np.ndarray, pose: np.ndarray, search_mm: float, samples: int
                  ) -> tuple[np.ndarray | None, float]:
        """The pose from the frame's four inner edges found near where pose puts them (None if
        a side is not seen, or the fit lands far away), and the edge blur (mm)."""
        g = self.geometry
        corners_mm = g.corners(g.frame)
        lines, blur = self._fit_edges(gray, pose, corners_mm, search_mm, samples)
        if lines is None:
            return None, blur
        if any(line is None for line in lines) and \
                not in_view(project(pose, corners_mm), gray.shape, 1.0).all():
            # the frame's inner edge leaves the frame: where a side of it is not seen, fit the
            # grid's printed border on that side instead (it lies inside the frame)
            grid, _ = self._fit_edges(gray, pose, self._grid_square,
                                      min(search_mm, GRID_SEARCH_MM), samples, falling=True)
            if grid is None:
                return None, blur
            squares = [corners_mm if lines[k] is not None else self._grid_square
                       for k in range(4)]
            lines = [lines[k] if lines[k] is not None else grid[k] for k in range(4)]
            # side k is y = const (k even) or x = const (k odd); corner k joins sides k-1, k
            level = [squares[k][k][1 - k % 2] for k in range(4)]
            corners_mm = np.array([[level[3], level[0]], [level[1], level[0]],
                                   [level[1], level[2]], [level[3], level[2]]])
        if any(line is None for line in lines):
            return None, blur
        pts = [_intersect(lines[k - 1], lines[k]) for k in range(4)]
        if any(p is None for p in pts):
            return None, blur
        refined = pose_from_corners(np.array(pts), corners_mm)
        # how far the fit moved the board, at its corners; at the grid's where the border leaves
        # the frame (a corner far outside moves most, and matters least)
        moved = _moved_px(refined, pose, g, None if in_view(
            project(pose, g.corners()), gray.shape, 1.0).all() else self._grid_square)
        return (refined if np.isfinite(moved) and moved <= 40 else None), blur

    def _edge_samples(self, corners_mm: np.ndarray, search_mm: float, n: int
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Where :meth:`_fit_edges` samples (mm), made once per square, search and count: n
        points along each side (4, n, 2), each side's inward normal (4, 2), the offsets
        across it, and every sample ((4 * n * offsets), 2)."""
        key = (corners_mm.tobytes(), search_mm, n)
        if key not in self._edge_grids:
            t = np.linspace(0.08, 0.92, n)
            a = corners_mm
            b = np.roll(corners_mm, -1, axis=0)
            along = a[:, None, :] + t[None, :, None] * (b - a)[:, None, :]  # (4, n, 2)
            direction = (b - a) / np.linalg.norm(b - a, axis=1, keepdims=True)
            inward = np.stack([-direction[:, 1], direction[:, 0]], axis=1)
            centre = np.full(2, self.geometry.board / 2)
            flip = np.einsum("ij,ij->i", centre - a, inward) < 0
            inward[flip] *= -1
            offsets = np.linspace(-search_mm, search_mm, int(search_mm * 8) | 1)
            samples = (along[:, :, None, :]
                       + offsets[None, None, :, None] * inward[:, None, None, :])
            grid = (along, inward, offsets, samples.reshape(-1, 2))
            for array in grid:
                array.setflags(write=False)
            self._edge_grids[key] = grid
        return self._edge_grids[key]

    def _fit_edges(self, gray: np.ndarray, pose: np.ndarray, corners_mm: np.ndarray,
                   search_mm: float, n: int, *, falling: bool = False
                   ) -> tuple[list[tuple[np.ndarray, np.ndarray] | None] | None, float]:
        """For each side of the square corners_mm: sub-pixel points where brightness rises from
        the dark frame inwards, and a robust line through them (point, direction) in image
        pixels; and how blurred the edge looks: the width (mm) over which it rises, on its
        blurriest side seen (NaN if none). All four sides are sampled in one pass (n samples a
        side); a side not seen has no line (None; all None if no line could be fitted). Only
        samples whose whole search lies in the frame count: the frame's own edge is never taken
        for the board's. ``falling``: brightness falls inwards instead (the grid's printed
        border, seen from outside)."""
        along, inward, offsets, samples = self._edge_samples(corners_mm, search_mm, n)
        px = project(pose, samples).reshape(4 * n, len(offsets), 2)
        # a search is a straight run: in view if both its ends are
        visible = (in_view(px[:, 0], gray.shape, 1.0) & in_view(px[:, -1], gray.shape, 1.0))
        values = cv2.remap(gray, px[:, :, 0].astype(np.float32), px[:, :, 1].astype(np.float32),
                           cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        if values.ndim == 3:  # sampled from a colour frame
            values = cv2.cvtColor(values, cv2.COLOR_BGR2GRAY)
        values = values.astype(np.float32)
        if falling:
            values = 255.0 - values
        grad = values[:, 2:] - values[:, :-2]  # rising inwards
        idx = np.argmax(grad, axis=1)
        rows = np.arange(len(grad))
        strength = grad[rows, idx]
        rise = values[:, -4:].mean(axis=1) - values[:, :4].mean(axis=1)
        # a sharp rise, or a gentle one across a clear step (a blurred frame)
        ok = ((strength > 12) | ((rise > 30) & (strength > 4))) & (idx > 0) \
            & (idx < grad.shape[1] - 1) & visible
        inner = np.clip(idx, 1, grad.shape[1] - 2)
        # parabolic sub-sample peak
        g0, g1, g2 = grad[rows, inner - 1], grad[rows, inner], grad[rows, inner + 1]
        denom = g0 - 2 * g1 + g2
        safe = np.where(np.abs(denom) > 1e-6, denom, 1.0)
        frac = np.where(np.abs(denom) > 1e-6, 0.5 * (g0 - g2) / safe, 0.0)
        pos = inner + 1 + np.clip(frac, -0.5, 0.5)
        step = offsets[1] - offsets[0]
        off_mm = offsets[0] + pos * step
        pts_mm = along.reshape(-1, 2) + off_mm[:, None] * np.repeat(inward, n, axis=0)
        pts = project(pose, pts_mm).reshape(4, n, 2)
        # edge width: the full rise over the steepest slope (mm), a median per side, wherever
        # the samples cross a clear rise
        slope = np.maximum(strength, 1e-3) / (2 * step)
        width = np.where((rise > 30) & visible, rise / slope, np.nan).reshape(4, n)
        seen = np.isfinite(width).sum(axis=1)
        medians = np.sort(width, axis=1)[np.arange(4), np.maximum(seen - 1, 0) // 2]  # NaN last
        blur = float(medians[seen >= n // 3].max()) if (seen >= n // 3).any() else float("nan")
        ok = ok.reshape(4, n)
        sides = ok.sum(axis=1) >= n // 3
        if sides.all():
            return _robust_lines(pts, ok), blur
        lines: list[tuple[np.ndarray, np.ndarray] | None] = [None] * 4
        if sides.any():
            fitted = _robust_lines(pts[sides], ok[sides]) or [None] * int(sides.sum())
            for k, line in zip(np.nonzero(sides)[0], fitted, strict=True):
                lines[k] = line
        return lines, blur


def _same_outline(a: np.ndarray, b: np.ndarray, tolerance_px: float) -> bool:
    """Two quadrilaterals (4, 2) with every corner within tolerance of one of the other's, in
    some quarter turn (a candidate and its turned copy are one outline)."""
    return any(np.linalg.norm(np.roll(a, k, axis=0) - b, axis=1).max() <= tolerance_px
               for k in range(4))


def _moved_px(a: np.ndarray, b: np.ndarray, geometry: BoardGeometry,
              at_mm: np.ndarray | None = None) -> float:
    """How far (px) the board's corners (or the points ``at_mm``) are apart under two poses."""
    at = geometry.corners() if at_mm is None else at_mm
    return float(np.abs(project(a, at) - project(b, at)).max())


def _line_quads(points: np.ndarray, min_side: float, lines_wanted: int = 8,
                rng_seed: int = 0) -> list[np.ndarray]:
    """Quadrilaterals from the longest straight runs of an outline (sequential RANSAC)."""
    rng = np.random.default_rng(rng_seed)
    stride = max(1, len(points) // 1500)  # every few points of a long outline will do
    pts = points[::stride]
    lines = []
    for _ in range(lines_wanted):
        if len(pts) < 20:
            break
        i = rng.integers(len(pts), size=(120, 2))
        a, b = pts[i[:, 0]], pts[i[:, 1]]
        d = b - a
        norm = np.linalg.norm(d, axis=1)
        good = norm > 5
        if not good.any():
            break
        a, d = a[good], d[good] / norm[good][:, None]
        normal = np.stack([-d[:, 1], d[:, 0]], axis=1)
        dist = np.abs(np.einsum("hnk,hk->hn", pts[None, :, :] - a[:, None, :], normal))
        inliers = dist < 1.5
        best = int(np.argmax(inliers.sum(axis=1)))
        mask = inliers[best]
        if mask.sum() * stride < min_side * 0.5:
            break
        sel = pts[mask]
        vx, vy, x0, y0 = cv2.fitLine(sel.astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
        pts = pts[~mask]
    quads = []
    # an arm may hide most of one side: complete three sides into a square
    for i in range(len(lines)):
        for j in range(i + 1, len(lines)):
            if abs(np.dot(lines[i][1], lines[j][1])) < 0.95:
                continue
            normal = np.array([-lines[i][1][1], lines[i][1][0]])
            gap = abs(np.dot(lines[j][0] - lines[i][0], normal))
            if gap < min_side:
                continue
            for k in range(len(lines)):
                if k in (i, j) or abs(np.dot(lines[i][1], lines[k][1])) > 0.3:
                    continue
                p, d = lines[k]
                n_k = np.array([-d[1], d[0]])
                for sign in (1.0, -1.0):
                    other = (p + sign * gap * n_k, d)
                    corners = [_intersect(a, b) for a, b in
                               ((lines[i], lines[k]), (lines[k], lines[j]), (lines[j], other),
                                (other, lines[i]))]
                    if all(c is not None for c in corners):
                        quads.append(np.array(corners))
    pairs = [(i, j) for i in range(len(lines)) for j in range(i + 1, len(lines))
             if abs(np.dot(lines[i][1], lines[j][1])) >= 0.9]  # near parallel
    for n, (i, j) in enumerate(pairs):
        for k, m in pairs[n + 1:]:
            if len({i, j, k, m}) < 4 or abs(np.dot(lines[i][1], lines[k][1])) > 0.5:
                continue  # the two pairs must be near perpendicular
            corners = [_intersect(lines[a], lines[b])
                       for a, b in ((i, k), (k, j), (j, m), (m, i))]
            if any(c is None for c in corners):
                continue
            quad = np.array(corners)
            if cv2.contourArea(quad.astype(np.float32)) >= min_side ** 2:
                quads.append(quad)
    return quads


def _plausible(board: np.ndarray, frame_width: int, frame_height: int, cfg: LocateConfig
               ) -> bool:
    """A board seen from above, tilted at most about 15 degrees: near square, not too small,
    not larger than the frame's longer side (turned, it may overflow the shorter)."""
    sides = np.linalg.norm(board - np.roll(board, -1, axis=0), axis=1)
    if sides.min() < cfg.min_board_fraction * frame_width:
        return False
    if sides.max() > max(frame_width, frame_height):
        return False
    if sides.max() / sides.min() > 1.45:
        return False
    for k in range(4):
        a = board[k - 1] - board[k]
        b = board[(k + 1) % 4] - board[k]
        cos = np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))
        if abs(cos) > 0.5:  # corners between 60 and 120 degrees
            return False
    return True


def _clockwise(quad: np.ndarray) -> np.ndarray:
    """Order 4 image points clockwise (in image coordinates, y down), starting anywhere."""
    centre = quad.mean(axis=0)
    ang = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    return quad[np.argsort(ang)]


def _robust_lines(pts: np.ndarray, ok: np.ndarray, rounds: int = 3
                  ) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """A line (point, direction) through each row of points (k, n, 2) where ok (k, n): total
    least squares, refitted without the points further than 3 median residuals (at least 1 px).
    A side with under 80 % of its points within 1 px of its line is fitted again from the
    largest set of points on one line (within 1 px), and the line with more points on it kept:
    an arm across a side must not pull the fit when fewer points lie along the edge than off
    it."""
    fitted = _trimmed_lines(pts, ok, ok, rounds)
    if fitted is None:
        return None
    mean, direction, _ = fitted
    on_line = _on_line(pts, ok, mean, direction)
    torn = on_line < 0.8 * ok.sum(axis=1)
    if torn.any():
        start = ok.copy()
        for k in np.nonzero(torn)[0]:
            start[k] = _collinear(pts[k], ok[k])
        again = _trimmed_lines(pts, ok, start, rounds)
        if again is not None:  # the line with more points on it (within 1 px) wins
            better = torn & (_on_line(pts, ok, again[0], again[1]) > on_line)
            mean[better], direction[better] = again[0][better], again[1][better]
    return [(mean[k], direction[k]) for k in range(len(pts))]


def _trimmed_lines(pts: np.ndarray, ok: np.ndarray, keep: np.ndarray, rounds: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Total least squares lines through the kept points of each row, refitted ``rounds``
    times without the points of ok further than 3 median residuals: (means, directions,
    the points kept)."""
    for _ in range(rounds):
        if (keep.sum(axis=1) < 6).any():
            return None
        w = keep.astype(np.float64)[:, :, None]
        mean = (pts * w).sum(axis=1) / w.sum(axis=1)
        d = (pts - mean[:, None, :]) * np.sqrt(w)
        sxx, syy = (d[:, :, 0] ** 2).sum(axis=1), (d[:, :, 1] ** 2).sum(axis=1)
        sxy = (d[:, :, 0] * d[:, :, 1]).sum(axis=1)
        angle = 0.5 * np.arctan2(2 * sxy, sxx - syy)  # the principal axis
        direction = np.stack([np.cos(angle), np.sin(angle)], axis=1)
        normal = np.stack([-direction[:, 1], direction[:, 0]], axis=1)
        res = np.abs(np.einsum("knj,kj->kn", pts - mean[:, None, :], normal))
        ranked = np.sort(np.where(keep, res, np.inf), axis=1)
        median = ranked[np.arange(len(pts)), (keep.sum(axis=1) - 1) // 2]
        cut = np.maximum(1.0, 3 * median)
        kept, keep = keep, ok & (res <= cut[:, None])
        if np.array_equal(kept, keep):  # a fixed point: another round would repeat this one
            break
    return mean, direction, keep


def _on_line(pts: np.ndarray, ok: np.ndarray, mean: np.ndarray, direction: np.ndarray,
             tolerance_px: float = 1.0) -> np.ndarray:
    """Per row, how many points of ok lie within tolerance of its line."""
    normal = np.stack([-direction[:, 1], direction[:, 0]], axis=1)
    res = np.abs(np.einsum("knj,kj->kn", pts - mean[:, None, :], normal))
    return (ok & (res <= tolerance_px)).sum(axis=1)


def _collinear(pts: np.ndarray, ok: np.ndarray, tolerance_px: float = 1.0) -> np.ndarray:
    """Of the points (n, 2) where ok, the largest set within tolerance of the line through two
    of them (every pair tried); all of ok when too few to choose."""
    idx = np.nonzero(ok)[0]
    if len(idx) < 6:
        return ok
    i, j = np.triu_indices(len(idx), 1)
    a, b = pts[idx[i]], pts[idx[j]]
    d = b - a
    length = np.linalg.norm(d, axis=1)
    good = length > 1e-6
    a, normal = a[good], np.stack([-d[good, 1], d[good, 0]], axis=1) / length[good, None]
    res = np.abs(np.einsum("hnk,hk->hn", pts[idx][None, :, :] - a[:, None, :], normal))
    inliers = res <= tolerance_px
    out = np.zeros_like(ok)
    out[idx[inliers[int(np.argmax(inliers.sum(axis=1)))]]] = True
    return out


def _intersect(l1: tuple[np.ndarray, np.ndarray], l2: tuple[np.ndarray, np.ndarray]
               ) -> np.ndarray | None:
    """Where two lines (point, direction) cross; None if they are parallel."""
    p1, d1 = l1
    p2, d2 = l2
    det = float(d2[0] * d1[1] - d1[0] * d2[1])  # of [d1, -d2] as columns
    if abs(det) < 1e-9:
        return None
    e = p2 - p1
    return p1 + float(d2[0] * e[1] - e[0] * d2[1]) / det * d1
