"""The app's identity (``app_metadata.toml`` + pyproject's version), rendered for each target.

One source, three installers: the Linux ``.desktop`` entry, MIME type and Debian
control file, the macOS ``Info.plist`` (through the PyInstaller spec) and the Windows
Inno Setup defines all come from here. Standard library only, so the spec, the build
script and CI can all import it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

PACKAGING = Path(__file__).resolve().parent
ROOT = PACKAGING.parent


@dataclass(frozen=True)
class FileAssociation:
    name: str
    extension: str  # full suffix without the leading dot, e.g. "agentmaker.sqlite"
    mime: str
    uti: str
    role: str

    @property
    def last_extension(self) -> str:
        """The part after the last dot: what Windows and macOS key associations on."""
        return self.extension.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class AppMetadata:
    name: str
    id: str
    bundle_id: str
    version: str
    publisher: str
    summary: str
    generic_name: str
    description: str
    homepage: str
    license: str
    icon: Path
    categories: tuple[str, ...]
    keywords: tuple[str, ...]
    windows_app_id: str
    macos_minimum: str
    file_associations: tuple[FileAssociation, ...]

    # ---------------------------------------------------------------- Linux
    def desktop_entry(self, exec_command: str | None = None) -> str:
        """The freedesktop ``.desktop`` file (``Exec`` defaults to the id on PATH)."""
        mimes = "".join(f"{a.mime};" for a in self.file_associations)
        lines = [
            "[Desktop Entry]",
            "Type=Application",
            f"Name={self.name}",
            f"GenericName={self.generic_name}",
            f"Comment={self.summary}",
            f"Exec={exec_command or self.id} %f",
            f"TryExec={exec_command or self.id}",
            f"Icon={self.id}",
            "Terminal=false",
            f"Categories={';'.join(self.categories)};",
            f"Keywords={';'.join(self.keywords)};",
            f"StartupWMClass={self.id}",
        ]
        if mimes:
            lines.append(f"MimeType={mimes}")
        return "\n".join(lines) + "\n"

    def mime_xml(self) -> str:
        """shared-mime-info package XML declaring the app's own file types."""
        types = "".join(
            f'  <mime-type type="{a.mime}">\n'
            f"    <comment>{a.name}</comment>\n"
            '    <sub-class-of type="application/vnd.sqlite3"/>\n'
            f'    <glob pattern="*.{a.extension}" weight="60"/>\n'
            f'    <icon name="{self.id}"/>\n'
            "  </mime-type>\n"
            for a in self.file_associations
        )
        return (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">\n'
            f"{types}</mime-info>\n"
        )

    def deb_control(self, *, arch: str, installed_kib: int, depends: list[str]) -> str:
        """The Debian ``control`` file of the binary package."""
        body = self.description.replace("\n", " ")
        lines = [
            f"Package: {self.id}",
            f"Version: {self.version}",
            f"Architecture: {arch}",
            f"Maintainer: {self.publisher} <noreply@example.invalid>",
            f"Installed-Size: {installed_kib}",
            "Section: utils",
            "Priority: optional",
            f"Homepage: {self.homepage}",
        ]
        if depends:
            lines.append(f"Depends: {', '.join(depends)}")
        lines.append(f"Description: {self.summary}")
        lines.append(f" {body}")
        return "\n".join(lines) + "\n"

    # ---------------------------------------------------------------- macOS
    def info_plist(self) -> dict[str, Any]:
        """Keys PyInstaller merges into the ``.app``'s ``Info.plist``."""
        return {
            "CFBundleName": self.name,
            "CFBundleDisplayName": self.name,
            "CFBundleIdentifier": self.bundle_id,
            "CFBundleShortVersionString": self.version,
            "CFBundleVersion": self.version,
            "LSMinimumSystemVersion": self.macos_minimum,
            "LSApplicationCategoryType": "public.app-category.productivity",
            "NSHighResolutionCapable": True,
            "NSRequiresAquaSystemAppearance": False,
            "NSHumanReadableCopyright": f"© {self.publisher}, {self.license}",
            "CFBundleDocumentTypes": [
                {
                    "CFBundleTypeName": a.name,
                    "CFBundleTypeRole": a.role,
                    "LSHandlerRank": "Owner",
                    "LSItemContentTypes": [a.uti],
                    "CFBundleTypeIconFile": "app.icns",
                }
                for a in self.file_associations
            ],
            "UTExportedTypeDeclarations": [
                {
                    "UTTypeIdentifier": a.uti,
                    "UTTypeDescription": a.name,
                    "UTTypeConformsTo": ["public.database", "public.data"],
                    "UTTypeTagSpecification": {
                        "public.filename-extension": [a.extension, a.last_extension],
                        "public.mime-type": [a.mime],
                    },
                }
                for a in self.file_associations
            ],
        }

    # -------------------------------------------------------------- Windows
    def iss_include(self, *, source_dir: Path, icon_file: Path, output_dir: Path) -> str:
        """Inno Setup preprocessor defines and registry entries (``#include``-d by the .iss)."""

        def q(value: str) -> str:
            return value.replace('"', '""')

        defines = {
            "AppName": self.name,
            "AppId": self.id,
            "AppGuid": "{" + self.windows_app_id,  # "{{" = a literal brace in Inno
            "AppVersion": self.version,
            "AppPublisher": self.publisher,
            "AppURL": self.homepage,
            "AppSummary": self.summary,
            "AppExeName": f"{self.id}.exe",
            "SourceDir": str(source_dir),
            "IconFile": str(icon_file),
            "OutputDir": str(output_dir),
            "OutputBaseName": f"{self.id}-{self.version}-windows-x64-setup",
        }
        out = ["; Generated by packaging/build.py from packaging/app_metadata.toml."]
        out += [f'#define {key} "{q(value)}"' for key, value in defines.items()]
        out.append("")
        out.append("[Registry]")
        for a in self.file_associations:
            progid = f"{self.bundle_id}.{a.last_extension}"
            ext = f".{a.last_extension}"
            root = "Root: HKA; Subkey: Software\\Classes"
            out += [
                f'{root}\\{ext}\\OpenWithProgids; ValueType: string; ValueName: "{progid}"; '
                'ValueData: ""; Flags: uninsdeletevalue',
                f'{root}\\{progid}; ValueType: string; ValueName: ""; '
                f'ValueData: "{q(a.name)}"; Flags: uninsdeletekey',
                f'{root}\\{progid}\\DefaultIcon; ValueType: string; ValueName: ""; '
                'ValueData: "{app}\\{#AppExeName},0"',
                f'{root}\\{progid}\\shell\\open\\command; ValueType: string; ValueName: ""; '
                'ValueData: """{app}\\{#AppExeName}"" ""%1"""',
                f"{root}\\Applications\\{{#AppExeName}}\\SupportedTypes; ValueType: string; "
                f'ValueName: "{ext}"; ValueData: ""',
            ]
        return "\n".join(out) + "\n"


def _project_version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        return str(tomllib.load(handle)["project"]["version"])


@cache
def load() -> AppMetadata:
    """The metadata of ``packaging/app_metadata.toml`` with pyproject's version."""
    with (PACKAGING / "app_metadata.toml").open("rb") as handle:
        raw = tomllib.load(handle)
    app = raw["app"]
    return AppMetadata(
        name=app["name"],
        id=app["id"],
        bundle_id=app["bundle_id"],
        version=_project_version(),
        publisher=app["publisher"],
        summary=app["summary"],
        generic_name=app["generic_name"],
        description=app["description"],
        homepage=app["homepage"],
        license=app["license"],
        icon=ROOT / app["icon"],
        categories=tuple(app["categories"]),
        keywords=tuple(app["keywords"]),
        windows_app_id=app["windows_app_id"],
        macos_minimum=app["macos_minimum"],
        file_associations=tuple(
            FileAssociation(
                name=a["name"],
                extension=a["extension"],
                mime=a["mime"],
                uti=a["uti"],
                role=a["role"],
            )
            for a in raw.get("file_associations", [])
        ),
    )
