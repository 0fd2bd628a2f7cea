"""The ``agentmaker models`` commands and ``agentmaker ask --model`` on the tiny model."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentmaker import cli


def test_models_list_import_ask_remove(
    tiny_gguf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    models = str(tmp_path / "models")
    assert cli.main(["models", "--models-dir", models, "list"]) == 0
    out = capsys.readouterr().out
    assert "No model installed." in out and "qwen2.5-1.5b-instruct" in out
    assert "* recommended for this computer" in out

    assert cli.main(["models", "--models-dir", models, "import", str(tiny_gguf)]) == 0
    assert "llama, Q4_1, context 8192" in capsys.readouterr().out
    assert cli.main(["models", "--models-dir", models, "list"]) == 0
    listed = capsys.readouterr().out
    assert "SmolLM2-135M-Instruct.Q4_1" in listed and "imported, used where it is" in listed

    png = tmp_path / "photo.gguf"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    assert cli.main(["models", "--models-dir", models, "import", str(png)]) == 2
    assert "photo.gguf: This is not a GGUF model file" in capsys.readouterr().err

    # ask --model finds the model by its name in the app's store (here: models_dir).
    from agentmaker import cli_models

    real = cli_models.llm_for
    monkeypatch.setattr(cli_models, "llm_for", lambda name: real(name, models))
    library = str(tmp_path / "lib.sqlite")
    doc = tmp_path / "policy.md"
    doc.write_text("# Policy\n\nThe daily meal allowance is 80 euros.\n", encoding="utf-8")
    assert cli.main(["--library", library, "--create", "ingest", str(doc)]) == 0
    capsys.readouterr()
    code = cli.main(
        ["--library", library, "ask", "--model", "SmolLM2-135M-Instruct.Q4_1", "meal allowance?"]
    )
    out = capsys.readouterr().out
    assert code == 0 and "[1] policy.md" in out
    assert "Extractive answer" not in out  # written by the model

    assert cli.main(["models", "--models-dir", models, "remove", "SmolLM2-135M-Instruct.Q4_1"]) == 0
    assert "the file itself was kept" in capsys.readouterr().out and tiny_gguf.exists()
    assert cli.main(["--library", library, "ask", "--model", "nope", "x"]) == 2
    assert "No installed model is called 'nope'" in capsys.readouterr().err
