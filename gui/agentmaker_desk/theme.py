"""The interface theme: System, Light or Dark (Settings › Interface).

Qt 6.8+ can ask the platform for a colour scheme (``QStyleHints.setColorScheme``);
where the platform does not follow (many Linux desktops, the offscreen platform), the
app switches to the Fusion style with a palette of its own, so the choice always
takes effect. "System" gives the platform back its own style and palette.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

#: Theme codes in the order the settings list them.
THEMES: tuple[str, ...] = ("system", "light", "dark")

_ERROR_ON_LIGHT = "#c62828"
_ERROR_ON_DARK = "#ff8a80"  # the same red, light enough to read on a dark background
_original: dict[str, object] = {}


def dark_palette() -> QPalette:
    """The app's dark palette (text, links and highlights chosen to read on dark)."""
    pal = QPalette()
    colours = {
        QPalette.ColorRole.Window: "#202124",
        QPalette.ColorRole.WindowText: "#e8eaed",
        QPalette.ColorRole.Base: "#17181a",
        QPalette.ColorRole.AlternateBase: "#2d2f33",
        QPalette.ColorRole.Text: "#e8eaed",
        QPalette.ColorRole.Button: "#2d2f33",
        QPalette.ColorRole.ButtonText: "#e8eaed",
        QPalette.ColorRole.BrightText: "#ffffff",
        QPalette.ColorRole.Highlight: "#3b6fb6",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#8ab4f8",
        QPalette.ColorRole.LinkVisited: "#c58af9",
        QPalette.ColorRole.PlaceholderText: "#9aa0a6",
        QPalette.ColorRole.ToolTipBase: "#2d2f33",
        QPalette.ColorRole.ToolTipText: "#e8eaed",
        QPalette.ColorRole.Mid: "#3c4043",
        QPalette.ColorRole.Dark: "#111214",
        QPalette.ColorRole.Light: "#3c4043",
        QPalette.ColorRole.Midlight: "#34373b",
        QPalette.ColorRole.Shadow: "#000000",
    }
    for role, colour in colours.items():
        pal.setColor(role, QColor(colour))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.WindowText,
    ):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6f7378"))
    return pal


def light_palette() -> QPalette:
    """Fusion's light palette, with a highlight dark enough for white text on it (the
    passage shown in its document is drawn that way)."""
    style = QStyleFactory.create("Fusion")
    pal = style.standardPalette() if style is not None else QPalette()
    pal.setColor(QPalette.ColorGroup.Active, QPalette.ColorRole.Highlight, QColor("#2266b0"))
    pal.setColor(QPalette.ColorGroup.Inactive, QPalette.ColorRole.Highlight, QColor("#2266b0"))
    pal.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    pal.setColor(QPalette.ColorRole.Link, QColor("#1a5fa8"))
    return pal


def is_dark(palette: QPalette) -> bool:
    """True when text is drawn light on a dark background."""
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def error_colour(palette: QPalette) -> QColor:
    """The red of error texts that reads on this palette's background."""
    return QColor(_ERROR_ON_DARK if is_dark(palette) else _ERROR_ON_LIGHT)


def resolve_theme(setting: str | None) -> str:
    """A known theme code (unknown or empty ones follow the system)."""
    return setting if setting in THEMES else "system"


def apply_theme(theme: str, app: QApplication | None = None) -> str:
    """Use ``theme`` now (every open window repaints); returns the theme applied."""
    app = app or QApplication.instance()  # type: ignore[assignment]
    assert isinstance(app, QApplication)
    theme = resolve_theme(theme)
    if not _original:  # what "System" goes back to
        _original["style"] = app.style().name()
        _original["palette"] = QPalette(app.palette())
    scheme = {
        "light": Qt.ColorScheme.Light,
        "dark": Qt.ColorScheme.Dark,
        "system": Qt.ColorScheme.Unknown,
    }[theme]
    hints = QGuiApplication.styleHints()
    if hasattr(hints, "setColorScheme"):  # Qt 6.8+
        hints.setColorScheme(scheme)
    if theme == "system":
        app.setStyle(str(_original["style"]))
        app.setPalette(_original["palette"])  # type: ignore[arg-type]
        return theme
    if hints.colorScheme() == scheme and app.style().name().lower() != "fusion":
        return theme  # the platform followed: keep its native style
    app.setStyle("Fusion")
    app.setPalette(dark_palette() if theme == "dark" else light_palette())
    return theme


__all__ = ["THEMES", "apply_theme", "dark_palette", "error_colour", "is_dark", "resolve_theme"]
