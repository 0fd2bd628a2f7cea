"""The app's icons: small SVGs from ``resources/icons`` tinted with the palette.

Icons drawn with ``currentColor`` take the palette's text colour, so they read well
in light and dark themes; they are rendered at several sizes and device pixel
ratios, so they stay sharp on high-DPI screens.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PySide6.QtCore import QByteArray, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QGuiApplication,
    QIcon,
    QIconEngine,
    QImage,
    QPainter,
    QPalette,
    QPixmap,
)
from PySide6.QtSvg import QSvgRenderer


def icons_dir() -> Path:
    """Folder of the bundled SVG icons."""
    try:
        from agentmaker.resources import resource_path

        return resource_path("icons")
    except Exception:  # the engine's lookup failed: fall back to the source tree
        return Path(__file__).resolve().parents[3] / "resources" / "icons"


@cache
def _svg_text(name: str) -> str:
    path = icons_dir() / f"{name}.svg"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def _render(svg: bytes, size: int, ratio: float) -> QPixmap:
    renderer = QSvgRenderer(QByteArray(svg))
    pixels = max(1, round(size * ratio))
    image = QImage(pixels, pixels, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, pixels, pixels))
    painter.end()
    pixmap = QPixmap.fromImage(image)
    pixmap.setDevicePixelRatio(ratio)
    return pixmap


class _TintedIcon(QIconEngine):
    """Draws an SVG in the palette's colour of the moment, so icons follow a theme
    switched while the app runs (a pixmap tinted once would stay dark on dark)."""

    def __init__(self, name: str, color: QColor | None) -> None:
        super().__init__()
        self._name = name
        self._color = QColor(color) if color is not None else None
        self._cache: dict[tuple[str, int, int, float], QPixmap] = {}

    def _colour(self, mode: QIcon.Mode) -> QColor:
        if self._color is not None:
            return self._color
        group = (
            QPalette.ColorGroup.Disabled
            if mode == QIcon.Mode.Disabled
            else QPalette.ColorGroup.Active
        )
        return QGuiApplication.palette().color(group, QPalette.ColorRole.ButtonText)

    def _pixmap(self, size: QSize, mode: QIcon.Mode, ratio: float) -> QPixmap:
        colour = self._colour(mode).name()
        key = (colour, size.width(), size.height(), ratio)
        cached = self._cache.get(key)
        if cached is None:
            if len(self._cache) > 64:  # a few sizes × a few themes
                self._cache.clear()
            svg = _svg_text(self._name).replace("currentColor", colour).encode("utf-8")
            cached = self._cache[key] = _render(svg, max(size.width(), size.height()), ratio)
        return cached

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        return self._pixmap(size, mode, 1.0)

    def scaledPixmap(
        self, size: QSize, mode: QIcon.Mode, state: QIcon.State, scale: float
    ) -> QPixmap:
        return self._pixmap(size, mode, max(1.0, scale))

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        ratio = max(1.0, painter.device().devicePixelRatioF()) if painter.device() else 1.0
        painter.drawPixmap(rect, self._pixmap(rect.size(), mode, ratio))

    def availableSizes(self, mode: QIcon.Mode, state: QIcon.State) -> list[QSize]:
        # Window managers pick a window icon from these (an empty list gives none).
        return [QSize(n, n) for n in (16, 24, 32, 48, 64, 128)]

    def clone(self) -> QIconEngine:
        return _TintedIcon(self._name, self._color)


def icon(name: str, color: QColor | None = None) -> QIcon:
    """The icon ``name`` (file stem in ``resources/icons``), tinted with ``color``.

    ``color`` defaults to the application palette's button text colour at the time the
    icon is drawn (it follows the theme). A missing file gives an empty icon rather than
    an error: an icon is never worth a crash.
    """
    if not _svg_text(name):
        return QIcon()
    return QIcon(_TintedIcon(name, color))
