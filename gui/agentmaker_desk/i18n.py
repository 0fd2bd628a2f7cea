"""Interface languages: English (the source texts) and Simplified Chinese.

Each language has a compiled ``.qm`` beside its ``.ts`` in ``resources/translations``:
``agentmaker_desk_zh_CN`` translates everything; ``agentmaker_desk_en`` holds only the
English plural forms of the ``%n`` messages ("1 passage", "2 passages"). Edit the .ts
files by hand (a blanket lupdate rewrites others' entries) and compile them with::

    for TS in resources/translations/*.ts; do
        .venv/bin/pyside6-lrelease "$TS" -qm "${TS%.ts}.qm"
    done
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

#: Languages the interface ships in, as (code, name shown in its own language).
LANGUAGES: tuple[tuple[str, str], ...] = (("en", "English"), ("zh_CN", "简体中文"))

_installed: list[QTranslator] = []


def translations_dir() -> Path:
    """Folder holding ``agentmaker_desk_<lang>.qm``."""
    try:
        from agentmaker.resources import resource_path

        return resource_path("translations")
    except Exception:  # engine lookup failed: use the source tree's folder
        return Path(__file__).resolve().parents[2] / "resources" / "translations"


def system_language() -> str:
    """The language code the system locale asks for, among the shipped ones."""
    for name in QLocale.system().uiLanguages():
        normalized = name.replace("-", "_")
        if normalized.startswith("zh") and "Hant" not in normalized and "TW" not in normalized:
            return "zh_CN"
        if normalized.startswith("en"):
            return "en"
    return "en"


def resolve_language(setting: str | None) -> str:
    """``"system"``/empty follows the system locale; otherwise a shipped code or English."""
    if not setting or setting == "system":
        return system_language()
    codes = {code for code, _ in LANGUAGES}
    return setting if setting in codes else "en"


def install_language(language: str, app: QCoreApplication | None = None) -> str:
    """Install the translators for ``language`` (replacing earlier ones); return its code.

    Also loads Qt's own translations (dialog buttons) when they are available.
    """
    app = app or QCoreApplication.instance()
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    code = resolve_language(language)
    # English has a (small) translation file too: the plural forms of "%n passage(s)".
    ours = QTranslator(app)
    if ours.load(str(translations_dir() / f"agentmaker_desk_{code}.qm")):
        app.installTranslator(ours)
        _installed.append(ours)
    if code == "en":
        QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
        return code
    QLocale.setDefault(QLocale(code))
    qt_base = QTranslator(app)
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if qt_base.load(f"qtbase_{code}", qt_dir):
        app.installTranslator(qt_base)
        _installed.append(qt_base)
    return code
