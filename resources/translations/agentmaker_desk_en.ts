<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>ActivityBar</name>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py"/>
        <source>%n scanned document(s) were read by OCR.</source>
        <translation>
            <numerusform>%n scanned document was read by OCR.</numerusform>
            <numerusform>%n scanned documents were read by OCR.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py"/>
        <source>Syncing linked folders: {done} of %n file(s)</source>
        <translation>
            <numerusform>Syncing linked folders: {done} of %n file</numerusform>
            <numerusform>Syncing linked folders: {done} of %n files</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py"/>
        <source>Syncing linked folders: %n file(s) looked at</source>
        <translation>
            <numerusform>Syncing linked folders: %n file looked at</numerusform>
            <numerusform>Syncing linked folders: %n files looked at</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ChunkTreeModel</name>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/chunk_tree_model.py"/>
        <source>%n passage(s)</source>
        <translation>
            <numerusform>%n passage</numerusform>
            <numerusform>%n passages</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>FailedFilesButton</name>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/widgets/failed_files_button.py"/>
        <source>Files that could not be added (%n)</source>
        <translation>
            <numerusform>Files that could not be added (%n)</numerusform>
            <numerusform>Files that could not be added (%n)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>IngestPanel</name>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>{done} of %n passage(s)</source>
        <translation>
            <numerusform>{done} of %n passage</numerusform>
            <numerusform>{done} of %n passages</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>%n passage(s)</source>
        <translation>
            <numerusform>%n passage</numerusform>
            <numerusform>%n passages</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>{done} of %n page(s) read</source>
        <translation>
            <numerusform>{done} of %n page read</numerusform>
            <numerusform>{done} of %n pages read</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>%n page(s) read by OCR</source>
        <translation>
            <numerusform>%n page read by OCR</numerusform>
            <numerusform>%n pages read by OCR</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>Continues at the next start ({done} of %n page(s) read).</source>
        <translation>
            <numerusform>Continues at the next start ({done} of %n page read).</numerusform>
            <numerusform>Continues at the next start ({done} of %n pages read).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>{done} of %n file(s)</source>
        <translation>
            <numerusform>{done} of %n file</numerusform>
            <numerusform>{done} of %n files</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>%v of %n file(s)</source>
        <translation>
            <numerusform>%v of %n file</numerusform>
            <numerusform>%v of %n files</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>LinkedFoldersPage</name>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py"/>
        <source>Syncing “{name}”: {done} of %n file(s) looked at…</source>
        <translation>
            <numerusform>Syncing “{name}”: {done} of %n file looked at…</numerusform>
            <numerusform>Syncing “{name}”: {done} of %n files looked at…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/main_window.py"/>
        <source>%n document(s)</source>
        <translation>
            <numerusform>%n document</numerusform>
            <numerusform>%n documents</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/main_window.py"/>
        <source>%Ln passage(s)</source>
        <translation>
            <numerusform>%Ln passage</numerusform>
            <numerusform>%Ln passages</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>PasswordFlow</name>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/settings/password_flow.py"/>
        <source>%n file(s) need a password: use “Enter password…” on its row.</source>
        <translation>
            <numerusform>%n file needs a password: use “Enter password…” on its row.</numerusform>
            <numerusform>%n files need a password: use “Enter password…” on their rows.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/settings/password_flow.py"/>
        <source>%n file(s) in linked folders need a password: enter it in Settings → Linked folders.</source>
        <translation>
            <numerusform>%n file in a linked folder needs a password: enter it in Settings → Linked folders.</numerusform>
            <numerusform>%n files in linked folders need a password: enter them in Settings → Linked folders.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/settings/dialog.py"/>
        <source>%n scanned document(s) are waiting to be read.</source>
        <translation>
            <numerusform>%n scanned document is waiting to be read.</numerusform>
            <numerusform>%n scanned documents are waiting to be read.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/settings/dialog.py"/>
        <source>%n scanned document(s) were read.</source>
        <translation>
            <numerusform>%n scanned document was read.</numerusform>
            <numerusform>%n scanned documents were read.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/settings/dialog.py"/>
        <source>Changing the embedding model re-computes the search vectors of all %Ln passage(s) in your library. This runs in the background after you save; you can keep reading meanwhile, and searching uses the new model when it is done.</source>
        <translation>
            <numerusform>Changing the embedding model re-computes the search vector of the %Ln passage in your library. This runs in the background after you save; you can keep reading meanwhile, and searching uses the new model when it is done.</numerusform>
            <numerusform>Changing the embedding model re-computes the search vectors of all %Ln passages in your library. This runs in the background after you save; you can keep reading meanwhile, and searching uses the new model when it is done.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/settings/dialog.py"/>
        <source>{kind} at {url} (%n model(s))</source>
        <translation>
            <numerusform>{kind} at {url} (%n model)</numerusform>
            <numerusform>{kind} at {url} (%n models)</numerusform>
        </translation>
    </message>
</context>
</TS>
