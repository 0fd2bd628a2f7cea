"""The window on the user's screen: a size that fits, one window per library."""

from __future__ import annotations

from pathlib import Path

from agentmaker_desk.single_instance import SingleInstance, ask_running_instance, server_name
from agentmaker_desk.window_state import PREFERRED_SIZE, default_size, fit_to_screen
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QMainWindow


def test_the_default_size_fits_a_small_laptop_and_keeps_the_preferred_size_elsewhere() -> None:
    laptop = default_size(QRect(0, 0, 1366, 728))  # 1366x768 minus a task bar
    assert laptop.width() <= 1366 and laptop.height() <= 728 * 0.92 + 1
    assert default_size(QRect(0, 0, 2560, 1400)) == PREFERRED_SIZE


def test_a_saved_size_bigger_than_the_screen_is_clamped(qtbot) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    window.resize(2560, 1640)  # saved at 200 % on a bigger screen
    window.move(-300, -200)
    fit_to_screen(window)
    available = window.screen().availableGeometry()
    frame = window.frameGeometry()
    assert frame.width() <= available.width() and frame.height() <= available.height()
    assert available.contains(frame.topLeft()) and available.contains(frame.bottomRight())


def test_a_second_launch_on_the_same_library_brings_the_first_forward(qtbot, tmp_path) -> None:
    library = tmp_path / "lib.sqlite"
    first = SingleInstance(library)
    assert first.listen()
    try:
        with qtbot.waitSignal(first.activationRequested, timeout=5000):
            assert ask_running_instance(library)
        assert not ask_running_instance(tmp_path / "another.sqlite")
    finally:
        first.close()
    assert not ask_running_instance(library)  # closed: the next launch opens a window


def test_one_library_one_name_through_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.sqlite"
    real.touch()
    (tmp_path / "link.sqlite").symlink_to(real)
    assert server_name(tmp_path / "link.sqlite") == server_name(real)
    assert server_name(real) != server_name(tmp_path / "other.sqlite")


def test_a_stale_socket_of_a_crashed_app_is_taken_over(qtbot, tmp_path) -> None:
    library = tmp_path / "lib.sqlite"
    crashed = SingleInstance(library)
    assert crashed.listen()
    # a crash leaves the socket file; a second server on the same name must still listen
    again = SingleInstance(library)
    try:
        assert again.listen()
    finally:
        again.close()
        crashed.close()
