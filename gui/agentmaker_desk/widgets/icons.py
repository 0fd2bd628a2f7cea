"""The app's icons: small SVGs from ``resources/icons`` tinted with the palette.

Icons drawn with ``currentColor`` take the palette's text colour, so they read well
in light and dark themes; they are rendered at several sizes and device pixel
ratios, so they stay sharp on high-DPI screens.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QImage, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer

_SIZES = (16, 20, 24, 32, 48, 64)


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


def icon(name: str, color: QColor | None = None) -> QIcon:
    """The icon ``name`` (file stem in ``resources/icons``), tinted with ``color``.

    ``color`` defaults to the application palette's button text colour. A missing
    file gives an empty icon rather than an error: an icon is never worth a crash.
    """
    text = _svg_text(name)
    if not text:
        return QIcon()
    if color is None:
        color = QGuiApplication.palette().color(QPalette.ColorRole.ButtonText)
    svg = text.replace("currentColor", color.name()).encode("utf-8")
    screen = QGuiApplication.primaryScreen()
    ratio = max(1.0, screen.devicePixelRatio()) if screen is not None else 1.0
    result = QIcon()
    for size in _SIZES:
        result.addPixmap(_render(svg, size, 1.0))
        if ratio > 1.0:
            result.addPixmap(_render(svg, size, ratio))
    return result
