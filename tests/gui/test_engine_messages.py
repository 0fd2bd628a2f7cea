"""In the Chinese interface, engine errors (files, servers, disk, questions) are Chinese,
filled with the file name or server address; English keeps the engine's own sentence."""

from __future__ import annotations

import asyncio
import shutil
import socket
from pathlib import Path

import pytest
from agentmaker.errors import AgentmakerError, DiskFullError, ModelConnectionError
from agentmaker.models.llm import ChatMessage
from agentmaker.models.openai_llm import OpenAICompatibleLLM
from agentmaker.testing.openai_server import FakeOpenAIServer
from agentmaker_desk.engine_messages import MESSAGES, engine_text
from agentmaker_desk.i18n import install_language

from tests.gui.helpers import drop_files, save_shot


@pytest.fixture
def chinese():
    install_language("zh_CN")
    yield
    install_language("en")


def _llm_error(llm: OpenAICompatibleLLM) -> AgentmakerError:
    with pytest.raises(AgentmakerError) as caught:
        asyncio.run(llm.complete([ChatMessage("user", "hi")]))
    return caught.value


def test_file_errors_in_the_import_panel_are_chinese(
    desk, qloop, bad_dir: Path, tmp_path: Path, chinese
) -> None:
    locked = tmp_path / "合同.pdf"
    shutil.copy(bad_dir / "libreoffice-writer-password.pdf", locked)
    blank = tmp_path / "blank.txt"
    blank.write_text("", encoding="utf-8")
    truncated = tmp_path / "handbook.docx"
    shutil.copy(bad_dir / "handbook-1p-truncated.docx", truncated)
    assert drop_files(desk, [locked, blank, truncated])
    qloop.until(lambda: not desk.bridge.tasks)
    panel = desk.ingest_panel
    assert panel.detail_of(str(blank)) == "blank.txt：文件是空的，没有可索引的内容。"
    assert panel.detail_of(str(locked)).startswith("合同.pdf：文件受密码保护。")
    assert panel.detail_of(str(truncated)).startswith("handbook.docx：文件已损坏或不完整")
    save_shot(desk, "14-engine-errors-zh.png")


def test_english_keeps_the_engine_sentence(desk, qloop, tmp_path: Path) -> None:
    blank = tmp_path / "blank.txt"
    blank.write_text("", encoding="utf-8")
    qloop.run(desk.bridge.aingest([str(blank)]))
    assert desk.ingest_panel.detail_of(str(blank)) == (
        "blank.txt: is empty (0 bytes); there is nothing to index."
    )


def test_server_disk_and_question_errors(chinese) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    down = _llm_error(OpenAICompatibleLLM("m", base_url=url, max_retries=0))
    assert engine_text(down).startswith(f"无法连接位于 http://127.0.0.1:{port}")
    with FakeOpenAIServer(api_key="right", models=["llama3"]) as server:
        wrong_key = _llm_error(OpenAICompatibleLLM("llama3", base_url=server.base_url, api_key="x"))
        missing = _llm_error(OpenAICompatibleLLM("qwen", base_url=server.base_url, api_key="right"))
    assert "拒绝了该 API 密钥" in engine_text(wrong_key)
    assert "没有模型“qwen”" in engine_text(missing)
    # Without the address the shorter form is used; a code the app does not know keeps
    # the engine's English.
    assert engine_text(ModelConnectionError("Could not reach it.")).startswith("无法连接模型服务器")
    assert engine_text(DiskFullError("The disk is full.")).startswith("磁盘已满")
    unknown = AgentmakerError("Something new went wrong.").coded("brand_new")
    assert engine_text(unknown) == "Something new went wrong."
    assert engine_text(code="empty", params={}, fallback="x.md: is empty.") == "x.md: is empty."


def test_every_message_has_a_chinese_translation(chinese) -> None:
    from PySide6.QtCore import QCoreApplication

    untranslated = [
        t
        for templates in MESSAGES.values()
        for t in templates
        if QCoreApplication.translate("EngineMessages", t) == t
    ]
    assert untranslated == []
    assert {"file_locked", "corrupt", "empty", "unsupported_type", "too_large", "no_text_layer",
            "password_required", "server_unreachable", "auth_rejected", "model_missing",
            "disk_full", "query_empty"} <= set(MESSAGES)  # fmt: skip


def test_linked_folder_failures_are_chinese(desk, qloop, tmp_path: Path, chinese) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "meals.md").write_text("# Meals\n\nBreakfast is included.\n", encoding="utf-8")
    (folder / "empty.md").write_text("", encoding="utf-8")
    dialog = desk.open_settings("linked")
    page = dialog.linked_page
    qloop.call(lambda: page.link(str(folder)))
    qloop.until(lambda: page.failure_paths() == [str(folder / "empty.md")])
    row = page.failure_list.topLevelItem(0)
    assert (row.text(0), row.text(1)) == ("empty.md", "文件是空的，没有可索引的内容。")
    save_shot(dialog, "14-linked-folder-failure-zh.png")
    dialog.reject()
    # The scan's report is still being handled (the document list is re-read): let it
    # finish on the loop, or the language switch of the teardown would run it outside.
    qloop.run(desk.bridge.folders.wait_idle())
    qloop.until(lambda: not desk.bridge.tasks)


def test_linked_folder_errors_are_chinese(tmp_path: Path, chinese) -> None:
    from agentmaker.library import Library
    from agentmaker.rag.folders.sync import FolderLinkError, FolderSync
    from agentmaker.testing import FakeEmbedder

    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    with Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder()) as lib:
        sync = FolderSync(lib)
        with pytest.raises(FolderLinkError) as missing:
            sync.link(tmp_path / "nowhere")
        sync.link(docs)
        with pytest.raises(FolderLinkError) as inside:
            sync.link(docs / "sub")
        with pytest.raises(FolderLinkError) as unknown:
            sync.set_ignore(tmp_path, ["*.tmp"])
    assert engine_text(missing.value) == f"{tmp_path / 'nowhere'} 不是文件夹，或者无法访问。"
    assert engine_text(inside.value) == f"{docs / 'sub'} 已作为关联文件夹 {docs} 的一部分被跟踪。"
    assert engine_text(unknown.value) == f"{tmp_path} 不是关联文件夹。"
    text = engine_text(
        code="folder_linked_elsewhere", params={"folder": "/home/anna/合同", "computer": "anna-pc"}
    )
    assert text.startswith("/home/anna/合同 已在电脑 anna-pc 上关联到这个团队资料库。")
