""" "Look for Ollama / LM Studio" selects the server it found (and a model that writes)."""

from __future__ import annotations

import socket

from agentmaker.models.discovery import discover_local_servers
from agentmaker.testing.openai_server import FakeOpenAIServer
from agentmaker_desk.settings.dialog import SettingsDialog
from agentmaker_desk.settings.settings import ApiKeyStore, DeskSettings

from tests.gui.helpers import save_shot


def _dialog(qtbot, probes) -> SettingsDialog:
    dialog = SettingsDialog(
        DeskSettings(), ApiKeyStore(), discover=lambda: discover_local_servers(probes=probes)
    )
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.llm_kind.currentData() == "none"
    return dialog


def test_the_found_server_and_its_chat_model_are_selected(qloop, qtbot) -> None:
    with FakeOpenAIServer(models=["nomic-embed-text:latest", "llama3.2:latest"]) as ollama:
        dialog = _dialog(qtbot, [("ollama", ollama.root_url)])
        qloop.call(dialog.detect_button.click)
        qloop.until(lambda: "ollama at" in dialog.detect_label.text())
    assert dialog.llm_kind.currentData() == "ollama"
    assert dialog.llm_url.text() == ollama.base_url
    assert dialog.llm_model.currentText() == "llama3.2:latest"  # not the embedding model
    assert "(2 models)" in dialog.detect_label.text()
    settings = dialog.result_settings()
    assert (settings.llm.kind, settings.llm.base_url, settings.llm.model) == (
        "ollama",
        ollama.base_url,
        "llama3.2:latest",
    )
    save_shot(dialog, "11-discovery-selects-ollama.png")


def test_one_model_is_singular_and_nothing_found_keeps_the_choice(qloop, qtbot) -> None:
    with FakeOpenAIServer(models=["qwen2.5-7b-instruct"]) as lmstudio:
        dialog = _dialog(qtbot, [("lmstudio", lmstudio.root_url)])
        qloop.call(dialog.detect_button.click)
        qloop.until(lambda: "lmstudio at" in dialog.detect_label.text())
    assert "(1 model)" in dialog.detect_label.text()
    assert dialog.llm_kind.currentData() == "lmstudio"
    assert dialog.llm_model.currentText() == "qwen2.5-7b-instruct"

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    empty = _dialog(qtbot, [("ollama", f"http://127.0.0.1:{port}")])
    qloop.call(empty.detect_button.click)
    qloop.until(lambda: "No Ollama" in empty.detect_label.text())
    assert empty.llm_kind.currentData() == "none"
