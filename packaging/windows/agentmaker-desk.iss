; Inno Setup 6 script: the Windows installer of agentmaker Desk.
;
; Do not run it by hand: `python packaging\build.py --target windows` freezes the app,
; writes build\packaging\windows\metadata.iss (name, version, publisher, AppId, paths and
; file associations, all from packaging\app_metadata.toml + pyproject's version) and runs
;
;     ISCC.exe /DMetadataFile=<that file> packaging\windows\agentmaker-desk.iss
;
; Result: dist\agentmaker-desk-<version>-windows-x64-setup.exe. It installs per user by
; default (no admin prompt; "install for all users" is offered), adds a Start menu entry,
; optionally a desktop icon, offers the app for library files, and uninstalls cleanly.
; The user's libraries and settings (in %APPDATA%/%LOCALAPPDATA%) are never removed.

#ifndef MetadataFile
  #error "Run through packaging\build.py, which passes /DMetadataFile=..."
#endif
#include MetadataFile

[Setup]
AppId={#AppGuid}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher={#AppPublisher}
AppPublisherURL={#AppURL}
AppComments={#AppSummary}
VersionInfoVersion={#AppVersion}
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
MinVersion=10.0
OutputDir={#OutputDir}
OutputBaseFilename={#OutputBaseName}
SetupIconFile={#IconFile}
UninstallDisplayIcon={app}\{#AppExeName}
UninstallDisplayName={#AppName}
ChangesAssociations=yes
CloseApplications=yes
WizardStyle=modern
Compression=lzma2/max
SolidCompression=yes
LZMANumBlockThreads=2

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[InstallDelete]
; An upgrade replaces the bundle whole: no stale modules from an older version.
Type: filesandordirs; Name: "{app}\_internal"

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExeName}"; Comment: "{#AppSummary}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExeName}"; Tasks: desktopicon

[Run]
Filename: "{app}\{#AppExeName}"; Description: "{cm:LaunchProgram,{#StringChange(AppName, '&', '&&')}}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
Type: filesandordirs; Name: "{app}\_internal"
