"""Settings › Interface › Theme: System / Light / Dark, saved, applied at start and at
once; dark text stays readable (answer links, highlights, error rows)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from agentmaker.rag.ingest.batch import BatchReport, FileOutcome
from agentmaker_desk.app import DeskApp
from agentmaker_desk.settings.settings import ApiKeyStore, SettingsStore
from agentmaker_desk.theme import apply_theme, error_colour, is_dark
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from tests.gui.helpers import save_shot


def _luminance(colour: QColor) -> float:
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(colour.redF())
        + 0.7152 * channel(colour.greenF())
        + 0.0722 * channel(colour.blueF())
    )


def contrast(a: QColor, b: QColor) -> float:
    """The WCAG contrast ratio (4.5 is the minimum for body text)."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.fixture
def system_theme_after() -> Iterator[None]:
    yield
    apply_theme("system")


def _save_theme(desk, qloop, code: str) -> None:
    dialog = desk.open_settings()
    dialog.tabs.setCurrentIndex(dialog.tabs.count() - 1)
    dialog.theme.setCurrentIndex(dialog.theme.findData(code))
    save_shot(dialog, f"18-settings-theme-{code}.png")
    save = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save)
    qloop.call(save.click)


def test_dark_is_saved_and_applied_at_once_then_system_restores(
    desk, qloop, settings_file: Path, system_theme_after: None
) -> None:
    app = QApplication.instance()
    before = QPalette(app.palette())
    assert not is_dark(before)
    desk.ingest_panel.begin([])
    desk.ingest_panel.finish(
        BatchReport(files=[FileOutcome("/d/broken.pdf", "failed", error="broken.pdf: damaged")])
    )
    desk.ingest_panel.setVisible(True)

    _save_theme(desk, qloop, "dark")
    assert SettingsStore(settings_file).load().theme == "dark"
    palette = app.palette()
    assert is_dark(palette)
    qloop.settle()
    # What the answer pane renders with follows at once (links, background).
    sheet = desk.transcript.browser.document().defaultStyleSheet()
    assert palette.color(QPalette.ColorRole.Link).name() in sheet
    row = desk.ingest_panel.history.current.child(0)
    assert row.foreground(0).color() == error_colour(palette)
    assert contrast(row.foreground(0).color(), palette.color(QPalette.ColorRole.Base)) >= 4.5
    headline = desk.empty_view.headline.palette()
    assert (
        contrast(
            headline.color(QPalette.ColorRole.WindowText), palette.color(QPalette.ColorRole.Window)
        )
        >= 4.5
    )
    button = desk.empty_view.failures_button
    assert button.palette().color(QPalette.ColorRole.ButtonText) == error_colour(palette)
    # Icons are drawn in the theme's colour of the moment: light on dark now.
    shown = desk.add_files_action.icon().pixmap(24).toImage()
    inked = [
        shown.pixelColor(x, y)
        for x in range(24)
        for y in range(24)
        if shown.pixelColor(x, y).alpha() > 200
    ]
    assert inked and all(c.lightness() > 150 for c in inked)
    save_shot(desk, "18-theme-dark.png")

    _save_theme(desk, qloop, "light")
    assert not is_dark(app.palette())
    assert SettingsStore(settings_file).load().theme == "light"
    _save_theme(desk, qloop, "system")
    assert app.palette() == before


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_text_reads_on_its_background(theme: str, system_theme_after: None) -> None:
    apply_theme(theme)
    pal = QApplication.instance().palette()
    pairs = {
        "text": (QPalette.ColorRole.Text, QPalette.ColorRole.Base),
        "window text": (QPalette.ColorRole.WindowText, QPalette.ColorRole.Window),
        "citation links": (QPalette.ColorRole.Link, QPalette.ColorRole.Base),
        "highlighted passage": (QPalette.ColorRole.HighlightedText, QPalette.ColorRole.Highlight),
        "buttons": (QPalette.ColorRole.ButtonText, QPalette.ColorRole.Button),
        "tooltips": (QPalette.ColorRole.ToolTipText, QPalette.ColorRole.ToolTipBase),
    }
    low = {
        name: round(contrast(pal.color(fg), pal.color(bg)), 2)
        for name, (fg, bg) in pairs.items()
        if contrast(pal.color(fg), pal.color(bg)) < 4.5
    }
    assert low == {}
    assert contrast(error_colour(pal), pal.color(QPalette.ColorRole.Base)) >= 4.5


def test_the_saved_theme_is_applied_at_start(
    qloop, tmp_path: Path, settings_file: Path, system_theme_after: None
) -> None:
    store = SettingsStore(settings_file)
    settings = store.load()
    settings.theme = "dark"
    store.save(settings)
    desk = DeskApp(
        tmp_path / "Library.agentmaker.sqlite", SettingsStore(settings_file), ApiKeyStore()
    )
    try:
        assert is_dark(QApplication.instance().palette())
        assert is_dark(desk.window.palette())
    finally:
        desk.window.close()
        desk.window.deleteLater()
