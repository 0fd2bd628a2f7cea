"""The main window's menu, toolbar and keyboard shortcuts.

Texts keep the ``MainWindow`` translation context they always had.
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QCoreApplication, QSize, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QMenuBar, QToolBar, QWidget

from agentmaker_desk.widgets.icons import icon


class ActionHost(Protocol):
    """The main window as its actions see it (a protocol: main_window imports this module)."""

    bridge: Any
    add_files_action: QAction
    add_folder_action: QAction
    open_library_action: QAction
    linked_folders_action: QAction
    settings_action: QAction

    def add_files(self) -> None: ...
    def add_folder(self) -> None: ...
    def choose_library(self) -> None: ...
    def open_settings(self, page: str | None = None) -> Any: ...
    def focus_question(self) -> None: ...
    def menuBar(self) -> QMenuBar: ...
    def addToolBar(self, toolbar: QToolBar) -> None: ...
    def close(self) -> bool: ...


def build_actions(window: ActionHost) -> None:
    """Create the File menu, the toolbar and the shortcuts of ``window``."""
    file_menu = window.menuBar().addMenu(QCoreApplication.translate("MainWindow", "&File"))
    window.add_files_action = QAction(
        icon("add"), QCoreApplication.translate("MainWindow", "Add files…"), window
    )
    window.add_files_action.setShortcut(QKeySequence("Ctrl+O"))
    window.add_files_action.triggered.connect(window.add_files)
    window.add_folder_action = QAction(
        icon("folder"), QCoreApplication.translate("MainWindow", "Add folder…"), window
    )
    window.add_folder_action.triggered.connect(window.add_folder)
    window.open_library_action = QAction(
        QCoreApplication.translate("MainWindow", "Open library…"), window
    )
    window.open_library_action.triggered.connect(window.choose_library)
    window.linked_folders_action = QAction(
        icon("sync"), QCoreApplication.translate("MainWindow", "Linked folders…"), window
    )
    window.linked_folders_action.triggered.connect(lambda: window.open_settings("linked"))
    window.settings_action = QAction(
        icon("settings"), QCoreApplication.translate("MainWindow", "Settings…"), window
    )
    window.settings_action.setShortcut(QKeySequence("Ctrl+,"))
    window.settings_action.setMenuRole(QAction.MenuRole.PreferencesRole)
    window.settings_action.triggered.connect(window.open_settings)
    window.new_chat_action = QAction(
        icon("chat"), QCoreApplication.translate("MainWindow", "New chat"), window
    )
    window.new_chat_action.setShortcut(QKeySequence("Ctrl+N"))
    window.new_chat_action.triggered.connect(window.new_chat)
    window.export_action = QAction(
        QCoreApplication.translate("MainWindow", "Export conversation…"), window
    )
    window.export_action.setShortcut(QKeySequence("Ctrl+E"))
    window.export_action.triggered.connect(window.export_conversation)
    quit_action = QAction(QCoreApplication.translate("MainWindow", "Quit"), window)
    quit_action.setShortcut(QKeySequence.StandardKey.Quit)
    quit_action.triggered.connect(window.close)
    file_menu.addAction(window.new_chat_action)
    file_menu.addAction(window.export_action)
    file_menu.addSeparator()
    for action in (window.add_files_action, window.add_folder_action):
        file_menu.addAction(action)
    file_menu.addSeparator()
    file_menu.addAction(window.open_library_action)
    file_menu.addAction(window.linked_folders_action)
    file_menu.addSeparator()
    file_menu.addAction(window.settings_action)
    file_menu.addSeparator()
    file_menu.addAction(quit_action)

    toolbar = QToolBar(QCoreApplication.translate("MainWindow", "Main"), window)
    toolbar.setObjectName("mainToolbar")
    toolbar.setMovable(False)
    toolbar.setIconSize(QSize(20, 20))
    toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    toolbar.addAction(window.new_chat_action)
    toolbar.addAction(window.add_files_action)
    toolbar.addAction(window.add_folder_action)
    spacer = QWidget(toolbar)
    spacer.setSizePolicy(spacer.sizePolicy().Policy.Expanding, spacer.sizePolicy().Policy.Preferred)
    toolbar.addWidget(spacer)
    toolbar.addAction(window.settings_action)
    settings_button = toolbar.widgetForAction(window.settings_action)
    settings_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
    settings_button.setAccessibleName(QCoreApplication.translate("MainWindow", "Settings"))
    settings_button.setToolTip(QCoreApplication.translate("MainWindow", "Settings (Ctrl+,)"))
    window.addToolBar(toolbar)

    focus = QShortcut(QKeySequence("Ctrl+L"), window)
    focus.activated.connect(window.focus_question)
    stop = QShortcut(QKeySequence(Qt.Key.Key_Escape), window)
    stop.activated.connect(window.bridge.stop_answer)
