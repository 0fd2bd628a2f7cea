"""Every tooltip shows hostile file and folder names as text, never as HTML.

Qt renders a tooltip as rich text when it looks like HTML (``Qt.mightBeRichText``), so a
folder named ``<img src="file:///…">`` became an image in the "keep in sync" offer
(issue 21). After ingesting, linking, asking and browsing a folder and files with such
names, this walks every widget's tooltip and every item view's ToolTipRole.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QListWidget,
    QTreeWidget,
    QWidget,
)

from tests.gui.helpers import drop_files

HOSTILE = '<img src="file:///etc/hostname"><b>bold</b>'
MARKERS = ("<img", "<b>")


def _hostile_folder(tmp_path: Path) -> Path:
    folder = tmp_path / HOSTILE.replace("/", "%")  # "/" cannot be in a name
    folder.mkdir()
    (folder / "<b>menu.md").write_text("# <i>Menu</i>\n\nZebra espresso <b>daily</b>.\n")
    (folder / "broken <img src=x>.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    return folder


def _model_tooltips(view: QAbstractItemView) -> list[str]:
    model = view.model()
    if model is None:
        return []
    tips: list[str] = []
    pending = [QModelIndex()]
    while pending:
        parent = pending.pop()
        for row in range(model.rowCount(parent)):
            for column in range(max(1, model.columnCount(parent))):
                index = model.index(row, column, parent)
                tip = model.data(index, Qt.ItemDataRole.ToolTipRole)
                if tip:
                    tips.append(str(tip))
            pending.append(model.index(row, 0, parent))
    return tips


def _all_tooltips() -> list[str]:
    tips: list[str] = []
    for top in QApplication.topLevelWidgets():
        for widget in [top, *top.findChildren(QWidget)]:
            if widget.toolTip():
                tips.append(widget.toolTip())
            if isinstance(widget, QListWidget):  # its model hides columnCount
                items = [widget.item(i) for i in range(widget.count())]
                tips += [item.toolTip() for item in items if item.toolTip()]
            elif isinstance(widget, QAbstractItemView) and not isinstance(widget, QTreeWidget):
                tips += _model_tooltips(widget)
            if isinstance(widget, QTreeWidget):
                pending = [widget.topLevelItem(i) for i in range(widget.topLevelItemCount())]
                while pending:
                    item = pending.pop()
                    tips += [
                        item.toolTip(c) for c in range(widget.columnCount()) if item.toolTip(c)
                    ]
                    pending += [item.child(i) for i in range(item.childCount())]
    return tips


def test_no_tooltip_renders_a_hostile_name_as_html(desk, qloop, tmp_path: Path) -> None:
    folder = _hostile_folder(tmp_path)
    assert drop_files(desk, [folder])
    assert desk.link_offer.isVisible()
    qloop.until(lambda: len(desk.bridge.documents) == 1)
    qloop.until(lambda: not desk.bridge.tasks)
    qloop.run(desk.bridge.folders.alink(str(folder)))
    qloop.run(desk.bridge.folders.wait_idle())
    qloop.call(lambda: desk.ask("zebra espresso <b>menu</b>"))  # the chat's title
    qloop.until(lambda: not desk.bridge.tasks)
    dialog = desk.open_settings("linked")
    qloop.settle(0.2)
    try:
        tips = _all_tooltips()
        named = [t for t in tips if "bold" in t or "menu" in t or "img" in t]
        assert named, "no tooltip carried the hostile names: the walk found nothing to check"
        for tip in named:
            assert not any(m in tip for m in MARKERS), f"unescaped tooltip: {tip!r}"
    finally:
        dialog.reject()
