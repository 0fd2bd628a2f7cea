<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>ActivityBar</name>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py" line="52"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py" line="77"/>
        <source>Re-computing search vectors</source>
        <translation>正在重新计算搜索向量</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py" line="83"/>
        <source>Re-embedding was cancelled; the old vectors are kept.</source>
        <translation>重新嵌入已取消，保留原有向量。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py" line="85"/>
        <source>The library now searches with the new embedding model.</source>
        <translation>资料库现在使用新的嵌入模型进行搜索。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py" line="99"/>
        <source>Reading “{name}”: scanned page {n} of {total}</source>
        <translation>正在识别“{name}”：扫描页 {n} / {total}</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py" line="103"/>
        <source>Indexing “{name}” (read by OCR)</source>
        <translation>正在索引“{name}”（通过 OCR 识别）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py" line="111"/>
        <source>Reading scanned pages was paused; it continues at the next start.</source>
        <translation>扫描页识别已暂停，下次启动时继续。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py" line="140"/>
        <source>{n} added</source>
        <translation>已添加 {n} 个</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py" line="142"/>
        <source>{n} updated</source>
        <translation>已更新 {n} 个</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py" line="144"/>
        <source>{n} renamed</source>
        <translation>已重命名 {n} 个</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py" line="146"/>
        <source>{n} removed</source>
        <translation>已移除 {n} 个</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py" line="148"/>
        <source>{n} could not be read</source>
        <translation>{n} 个无法读取</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py" line="149"/>
        <source>Linked folders: {what}.</source>
        <translation>关联文件夹：{what}。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py" line="190"/>
        <source>(+{n} more)</source>
        <translation>（另有 {n} 项）</translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py"/>
        <source>%n scanned document(s) were read by OCR.</source>
        <translation>
            <numerusform>已通过 OCR 识别 %n 个扫描文档。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py"/>
        <source>Syncing linked folders: {done} of %n file(s)</source>
        <translation>
            <numerusform>正在同步关联文件夹：{done} / %n 个文件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py"/>
        <source>Syncing linked folders: %n file(s) looked at</source>
        <translation>
            <numerusform>正在同步关联文件夹：已检查 %n 个文件</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/activity_bar.py"/>
        <source>, </source>
        <translation>，</translation>
    </message>
</context>
<context>
    <name>App</name>
    <message>
        <location filename="../../gui/agentmaker_desk/app.py" line="58"/>
        <source>Something went wrong</source>
        <translation>出了点问题</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/app.py" line="59"/>
        <source>The app ran into an unexpected problem. Your library is safe; you can keep working. Details are in the log file.</source>
        <translation>应用遇到了意外问题。你的资料库是安全的，可以继续使用。详细信息已写入日志文件。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/app.py" line="117"/>
        <source>The new language is used when the current work ends or at next start.</source>
        <translation>新的语言将在当前任务结束后或下次启动时生效。</translation>
    </message>
</context>
<context>
    <name>AskBar</name>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/ask_box.py" line="61"/>
        <source>Question</source>
        <translation>问题</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/ask_box.py" line="64"/>
        <source>Ask a question about your documents (Enter to ask, Shift+Enter for a new line)</source>
        <translation>就你的文档提问（按 Enter 提问，Shift+Enter 换行）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/ask_box.py" line="72"/>
        <source>Ask</source>
        <translation>提问</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/ask_box.py" line="74"/>
        <source>Ask (Enter)</source>
        <translation>提问（Enter）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/ask_box.py" line="80"/>
        <source>Stop the answer</source>
        <translation>停止回答</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/ask_box.py" line="81"/>
        <source>Stop the answer (Esc)</source>
        <translation>停止回答（Esc）</translation>
    </message>
</context>
<context>
    <name>ChunkBrowser</name>
    <message>
        <location filename="../../gui/agentmaker_desk/library/chunk_browser.py" line="49"/>
        <source>Filter documents by name or folder</source>
        <translation>按名称或文件夹筛选文档</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/chunk_browser.py" line="50"/>
        <source>Filter documents</source>
        <translation>筛选文档</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/chunk_browser.py" line="60"/>
        <source>Documents and passages</source>
        <translation>文档与段落</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/chunk_browser.py" line="73"/>
        <source>Passage text</source>
        <translation>段落文本</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/chunk_browser.py" line="74"/>
        <source>Select a passage to read it here.</source>
        <translation>选择一个段落，在此阅读。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/chunk_browser.py" line="154"/>
        <source>read by OCR</source>
        <translation>通过 OCR 识别</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/chunk_browser.py" line="168"/>
        <source>Re-index “{name}”</source>
        <translation>重新索引“{name}”</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/chunk_browser.py" line="169"/>
        <source>Remove “{name}” from the library</source>
        <translation>从资料库中移除“{name}”</translation>
    </message>
</context>
<context>
    <name>ChunkTreeModel</name>
    <message>
        <location filename="../../gui/agentmaker_desk/library/chunk_tree_model.py" line="438"/>
        <source>slide {number}</source>
        <translation>第 {number} 张幻灯片</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/chunk_tree_model.py" line="442"/>
        <source>row {row}</source>
        <translation>第 {row} 行</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/chunk_tree_model.py" line="444"/>
        <source>rows {first}–{last}</source>
        <translation>第 {first}–{last} 行</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/chunk_tree_model.py" line="254"/>
        <source>Documents</source>
        <extracomment>Rows inserted per fetchMore call. A loader runs ``work`` (possibly on a worker thread) and calls ``done`` with its result on the GUI thread. The invalid index (the model&apos;s root), shared as a default argument.</extracomment>
        <translation>文档</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/chunk_tree_model.py" line="430"/>
        <source>(text without a heading)</source>
        <translation>（无标题的文本）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/chunk_tree_model.py" line="431"/>
        <source>{heading}  ({count})</source>
        <translation>{heading}  （{count}）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/chunk_tree_model.py" line="448"/>
        <source>p. {page}</source>
        <translation>第 {page} 页</translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/chunk_tree_model.py"/>
        <source>%n passage(s)</source>
        <translation>
            <numerusform>%n 个段落</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ConversationLinks</name>
    <message>
        <location filename="../../gui/agentmaker_desk/bridge/conversations.py" line="192"/>
        <source>There is no conversation to export yet.</source>
        <extracomment>Conversations listed at a time in the sidebar.</extracomment>
        <translation>还没有可以导出的对话。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/bridge/conversations.py" line="232"/>
        <source>No library is open.</source>
        <translation>没有打开的资料库。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/bridge/conversations.py"/>
        <source>Check this answer: {numbers} appear in none of the passages it was given.</source>
        <translation>请核实此回答：{numbers} 未出现在提供给它的任何段落中。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/bridge/conversations.py"/>
        <source>No passage found is close to this question, so the model was not asked.</source>
        <translation>找到的段落都与这个问题不够接近，因此没有询问模型。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/bridge/conversations.py"/>
        <source>The question names a row of your data, and none of its columns ({columns}) is what it asks for, so the model was not asked.</source>
        <translation>问题指明了数据中的一行，但它的各列（{columns}）都不是所问的内容，因此没有询问模型。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/bridge/conversations.py"/>
        <source>The model&apos;s answer is not in the passages it was given, so it is not shown as the answer. Its unchecked draft: {draft}</source>
        <translation>模型的回答在提供给它的段落中找不到依据，因此没有作为答案显示。它未经核实的草稿：{draft}</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/bridge/conversations.py"/>
        <source>The model&apos;s answer is not in its passages; these quoted passages look relevant. Its unchecked draft: {draft}</source>
        <translation>模型的回答在它的段落中找不到依据；下面引用的段落看起来相关。它未经核实的草稿：{draft}</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/bridge/conversations.py"/>
        <source>The model did not answer; these quoted passages look relevant.</source>
        <translation>模型没有作答；下面引用的段落看起来相关。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/bridge/conversations.py"/>
        <source>The model found no answer in all the passages at once; this one is from its second reading, of passage [1] alone, checked like any answer.</source>
        <translation>模型在全部段落中没有找到答案；这个答案来自它第二次只读段落 [1] 的结果，并像其他答案一样经过核对。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/bridge/conversations.py"/>
        <source>The model first only pointed at a passage; this is its own sentence, finished when it was asked to go on, and checked like any answer.</source>
        <translation>模型起初只指向了一个段落；这是它自己的句子，在被要求接着写下去后补全，并像其他答案一样经过核对。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/bridge/conversations.py"/>
        <source>Left out, because no passage says it: {sentences}</source>
        <translation>已省略，因为没有段落这样说：{sentences}</translation>
    </message>
</context>
<context>
    <name>ConversationList</name>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/conversation_list.py" line="65"/>
        <location filename="../../gui/agentmaker_desk/chat/conversation_list.py" line="154"/>
        <location filename="../../gui/agentmaker_desk/chat/conversation_list.py" line="163"/>
        <location filename="../../gui/agentmaker_desk/chat/conversation_list.py" line="248"/>
        <source>New chat</source>
        <extracomment>How long the search box waits for typing to pause (milliseconds). How long Undo is offered after a delete (milliseconds).</extracomment>
        <translation>新对话</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/conversation_list.py" line="67"/>
        <source>Start a new chat (Ctrl+N)</source>
        <translation>开始新对话（Ctrl+N）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/conversation_list.py" line="72"/>
        <location filename="../../gui/agentmaker_desk/chat/conversation_list.py" line="73"/>
        <source>Search chats</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/conversation_list.py" line="83"/>
        <source>Chats</source>
        <translation>对话</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/conversation_list.py" line="96"/>
        <source>Rename chat</source>
        <translation>重命名对话</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/conversation_list.py" line="98"/>
        <source>Delete chat</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/conversation_list.py" line="107"/>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/conversation_list.py" line="166"/>
        <source>No chat mentions this.</source>
        <translation>没有对话提到这些内容。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/conversation_list.py" line="248"/>
        <source>Deleted “{title}”.</source>
        <translation>已删除“{title}”。</translation>
    </message>
</context>
<context>
    <name>DropOverlay</name>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/drop_overlay.py" line="17"/>
        <location filename="../../gui/agentmaker_desk/widgets/drop_overlay.py" line="47"/>
        <source>Drop to add to the library</source>
        <translation>松开即可添加到资料库</translation>
    </message>
</context>
<context>
    <name>EmptyLibraryView</name>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/empty_state.py" line="27"/>
        <source>Your library is empty</source>
        <translation>你的资料库是空的</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/empty_state.py" line="34"/>
        <source>Drop files or folders here, or click Add files… or Add folder…</source>
        <translation>把文件或文件夹拖到这里，或点击“添加文件…”或“添加文件夹…”</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/empty_state.py" line="41"/>
        <source>PDF, Word, PowerPoint, Excel, OpenDocument, RTF, EPUB, e-mail (.eml, .mbox), Markdown, text, HTML, CSV and JSON files, scans and pictures are read on this computer; nothing is uploaded.</source>
        <translation>PDF、Word、PowerPoint、Excel、OpenDocument、RTF、EPUB、电子邮件（.eml、.mbox）、Markdown、纯文本、HTML、CSV 和 JSON 文件以及扫描件和图片都在本机读取，不会上传任何内容。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/empty_state.py" line="49"/>
        <source>Add files…</source>
        <translation>添加文件…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/empty_state.py" line="54"/>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
</context>
<context>
    <name>EngineBridge</name>
    <message>
        <location filename="../../gui/agentmaker_desk/bridge/bridge.py" line="310"/>
        <location filename="../../gui/agentmaker_desk/bridge/bridge.py" line="430"/>
        <source>No library is open.</source>
        <extracomment>While a batch runs, finished documents are listed again at most this often.</extracomment>
        <translation>没有打开的资料库。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/bridge/bridge.py" line="398"/>
        <source>Re-indexed “{name}”.</source>
        <translation>已重新索引“{name}”。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/bridge/models.py" line="75"/>
        <source>Re-ranking needs a Cohere API key; it is off.</source>
        <translation>重排序需要 Cohere API 密钥，目前已关闭。</translation>
    </message>
</context>
<context>
    <name>EngineMessages</name>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{file}: the file no longer exists; it may have been moved, renamed or deleted.</source>
        <translation>{file}：文件已不存在，可能已被移动、重命名或删除。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{file}: the file cannot be opened: another program may be using it, or you may not read it. Close it there or check its permissions, then try again.</source>
        <translation>{file}：无法打开文件：可能有其他程序正在使用它，或你没有读取权限。请在那个程序中关闭它或检查文件权限，然后重试。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{file}: the file could not be read.</source>
        <translation>{file}：无法读取该文件。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{file}: an unexpected problem stopped the file from being read.</source>
        <translation>{file}：读取文件时遇到意外问题。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{file}: files of this type ({extension}) cannot be indexed.</source>
        <translation>{file}：无法为此类型（{extension}）的文件建立索引。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{file}: this kind of file cannot be indexed.</source>
        <translation>{file}：无法为这种文件建立索引。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{file}: the content does not match the file&apos;s extension. Give it the extension of its real type, or save it again.</source>
        <translation>{file}：文件内容与其扩展名不符。请把扩展名改成它的真实类型，或重新保存该文件。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{file}: the file is empty; there is nothing to index.</source>
        <translation>{file}：文件是空的，没有可索引的内容。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{file}: the file is damaged or incomplete and cannot be read. Save or export it again, then add it again.</source>
        <translation>{file}：文件已损坏或不完整，无法读取。请重新保存或导出后再添加。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{file}: the file is protected by a password. Enter its password to add it.</source>
        <translation>{file}：文件受密码保护。请输入密码后再添加。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{file}: the file has no text, only scanned pages. Turn on reading scanned pages (OCR) in Settings to add it.</source>
        <translation>{file}：文件中没有文字，只有扫描页面。请在“设置”中开启识别扫描页面（OCR）后再添加。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{file}: the file is {size_mb} MB, more than the limit of {limit_mb} MB. Split it into smaller files.</source>
        <translation>{file}：文件大小为 {size_mb} MB，超过了 {limit_mb} MB 的上限。请把它拆分成较小的文件。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{file}: the file is too large to read. Split it into smaller files.</source>
        <translation>{file}：文件太大，无法读取。请把它拆分成较小的文件。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>Could not reach the server at {url}. Check that it is running and that its address in Settings is right.</source>
        <translation>无法连接位于 {url} 的服务器。请确认它正在运行，并检查“设置”中的服务器地址是否正确。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>The model server could not be reached. Check that it is running and that its address in Settings is right.</source>
        <translation>无法连接模型服务器。请确认它正在运行，并检查“设置”中的服务器地址是否正确。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>The connection to {url} broke off. Check that the server runs and try again.</source>
        <translation>与 {url} 的连接中断。请确认服务器正在运行，然后重试。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>The server at {url} did not answer within {seconds} s. It may be busy or still loading the model; try again.</source>
        <translation>位于 {url} 的服务器在 {seconds} 秒内没有响应。它可能正忙或仍在加载模型，请重试。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>The server at {url} rejected the API key. Check the key in Settings.</source>
        <translation>位于 {url} 的服务器拒绝了该 API 密钥。请在“设置”中检查密钥。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>The server rejected the API key. Check the key in Settings.</source>
        <translation>服务器拒绝了该 API 密钥。请在“设置”中检查密钥。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>The server at {url} refused access to “{model}” with this API key. Check the key and its permissions in Settings.</source>
        <translation>位于 {url} 的服务器拒绝此 API 密钥访问“{model}”。请在“设置”中检查密钥及其权限。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>No API key is set for {url}. Add your key in Settings.</source>
        <translation>尚未为 {url} 设置 API 密钥。请在“设置”中添加密钥。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>The server at {url} has no model “{model}”. Pick one of its models in Settings.</source>
        <translation>位于 {url} 的服务器上没有模型“{model}”。请在“设置”中选择它提供的模型。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>The server does not have the chosen model. Pick one of its models in Settings.</source>
        <translation>服务器上没有所选的模型。请在“设置”中选择它提供的模型。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>The server keeps answering “too many requests”. Wait a minute and try again.</source>
        <translation>服务器一直回复“请求过多”。请等一分钟后重试。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>The disk is full: the library could not be saved. Free some space and try again; nothing already in the library was lost.</source>
        <translation>磁盘已满：资料库无法保存。请释放一些空间后重试；资料库中已有的内容不会丢失。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>Another program has this library open for writing. Close it there and try again.</source>
        <translation>另一个程序正以写入方式打开此资料库。请在那里关闭它后重试。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>The question has no words in it. Type what you are looking for.</source>
        <translation>问题中没有任何词语。请输入你要查找的内容。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>The question is {length} characters long; the limit is {limit}. Shorten it to what you want to know.</source>
        <translation>问题长 {length} 个字符，上限为 {limit} 个。请缩短为你想了解的内容。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{folder} is not a folder, or it cannot be reached.</source>
        <translation>{folder} 不是文件夹，或者无法访问。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{folder} is already followed as part of the linked folder {parent}.</source>
        <translation>{folder} 已作为关联文件夹 {parent} 的一部分被跟踪。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{folder} is not a linked folder.</source>
        <translation>{folder} 不是关联文件夹。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{folder} is already linked to this team library on the computer {computer}. Link it there, or add its files instead of linking the folder.</source>
        <translation>{folder} 已在电脑 {computer} 上关联到这个团队资料库。请在那台电脑上关联，或者直接添加其中的文件，而不是关联整个文件夹。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/engine_messages.py"/>
        <source>{folder} is already linked to this team library by someone else. Add its files instead of linking the folder.</source>
        <translation>{folder} 已由其他人关联到这个团队资料库。请直接添加其中的文件，而不是关联整个文件夹。</translation>
    </message>
</context>
<context>
    <name>FailedFilesButton</name>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/widgets/failed_files_button.py"/>
        <source>Files that could not be added (%n)</source>
        <translation>
            <numerusform>无法添加的文件（%n）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/failed_files_button.py"/>
        <source>Show the files that could not be added, and why</source>
        <translation>显示无法添加的文件及原因</translation>
    </message>
</context>
<context>
    <name>FolderLinks</name>
    <message>
        <location filename="../../gui/agentmaker_desk/bridge/folder_links.py" line="230"/>
        <source>A linked folder could not be synced: {error}</source>
        <translation>无法同步关联文件夹：{error}</translation>
    </message>
</context>
<context>
    <name>IngestPanel</name>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="67"/>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="135"/>
        <source>Adding files</source>
        <translation>正在添加文件</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="73"/>
        <source>Overall progress</source>
        <translation>总体进度</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="78"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="79"/>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="441"/>
        <source>Stop adding files; files already added are kept</source>
        <translation>停止添加文件；已添加的文件会保留</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="85"/>
        <source>Open a password-protected file of this list</source>
        <translation>打开此列表中受密码保护的文件</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="88"/>
        <source>Retry failed files</source>
        <translation>重试失败的文件</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="91"/>
        <source>Hide</source>
        <translation>隐藏</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="97"/>
        <source>Files being added</source>
        <translation>正在添加的文件</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="99"/>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="99"/>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="99"/>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="137"/>
        <source>Looking at the files…</source>
        <translation>正在检查文件…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="194"/>
        <source>{n} added</source>
        <translation>已添加 {n} 个</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="196"/>
        <source>{n} already up to date</source>
        <translation>{n} 个已是最新</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="198"/>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="458"/>
        <source>{n} could not be read</source>
        <translation>{n} 个无法读取</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="200"/>
        <source>{n} waiting for OCR</source>
        <translation>{n} 个等待 OCR 识别</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="202"/>
        <source>{n} not added (cancelled)</source>
        <translation>{n} 个未添加（已取消）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="204"/>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="286"/>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="204"/>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="450"/>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="219"/>
        <source>Adding files failed</source>
        <translation>添加文件失败</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="259"/>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="280"/>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="281"/>
        <source>Reading…</source>
        <translation>正在读取…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="282"/>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="372"/>
        <source>Indexing…</source>
        <translation>正在索引…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="283"/>
        <source>Added</source>
        <translation>已添加</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="284"/>
        <source>Already up to date</source>
        <translation>已是最新</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="285"/>
        <source>Could not be read</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="287"/>
        <source>Waiting for OCR</source>
        <translation>等待 OCR 识别</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="288"/>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="450"/>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="294"/>
        <source>Unknown problem.</source>
        <translation>未知问题。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="307"/>
        <source>Scanned: its pages are read by OCR after the other files.</source>
        <translation>扫描件：其他文件处理完后，用 OCR 识别各页。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="309"/>
        <source>Scanned: reading scanned pages is turned off in Settings.</source>
        <translation>扫描件：“设置”中已关闭扫描页识别。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="351"/>
        <source>Reading scanned pages</source>
        <translation>正在识别扫描页</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="353"/>
        <source>Starting OCR…</source>
        <translation>正在启动 OCR…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="357"/>
        <source>Pause reading scanned pages; pages already read are kept</source>
        <translation>暂停识别扫描页；已识别的页面会保留</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="368"/>
        <source>Reading scanned page {n} of {total}…</source>
        <translation>正在识别扫描页 {n} / {total}…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="381"/>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="433"/>
        <source>Added (read by OCR)</source>
        <translation>已添加（通过 OCR 识别）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="387"/>
        <source>No readable text</source>
        <translation>没有可识别的文字</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="404"/>
        <source>page %v of %m</source>
        <translation>第 %v / %m 页</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="405"/>
        <source>Reading “{name}”</source>
        <translation>正在识别“{name}”</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="446"/>
        <source>Scanned pages could not be read</source>
        <translation>无法识别扫描页</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="455"/>
        <source>{n} read by OCR</source>
        <translation>{n} 个通过 OCR 识别</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="460"/>
        <source>the rest continues at the next start</source>
        <translation>其余部分下次启动时继续</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="476"/>
        <source>{done} of {total}</source>
        <translation>{done} / {total}</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="418"/>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="491"/>
        <source>about {n} s left</source>
        <translation>约剩 {n} 秒</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="296"/>
        <source>Use “Enter password…” (or double-click the row).</source>
        <translation>请使用“输入密码…”（或双击该行）。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="419"/>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="492"/>
        <source>about {n} min left</source>
        <translation>约剩 {n} 分钟</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="497"/>
        <source>Cancelling… files already added are kept.</source>
        <translation>正在取消…已添加的文件会保留。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="500"/>
        <source>Pausing… pages already read are kept.</source>
        <translation>正在暂停…已识别的页面会保留。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="522"/>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="83"/>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py" line="528"/>
        <source>Enter password…</source>
        <translation>输入密码…</translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>{done} of %n passage(s)</source>
        <translation>
            <numerusform>{done} / %n 个段落</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>%n passage(s)</source>
        <translation>
            <numerusform>%n 个段落</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>{done} of %n page(s) read</source>
        <translation>
            <numerusform>已识别 {done} / %n 页</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>%n page(s) read by OCR</source>
        <translation>
            <numerusform>通过 OCR 识别了 %n 页</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>Continues at the next start ({done} of %n page(s) read).</source>
        <translation>
            <numerusform>下次启动时继续（已识别 {done} / %n 页）。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>{done} of %n file(s)</source>
        <translation>
            <numerusform>第 {done} / %n 个文件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>%v of %n file(s)</source>
        <translation>
            <numerusform>%v / %n 个文件</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>Adding files…</source>
        <translation>正在添加文件…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>{title}: {summary}</source>
        <translation>{title}：{summary}</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>{time} · {text}</source>
        <translation>{time} · {text}</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>Tried again</source>
        <translation>已重试</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>Added again in a later batch; its newest row is above.</source>
        <translation>已在之后的批次中再次添加；最新的一行在上方。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/ingest_panel.py"/>
        <source>{summary}.</source>
        <translation>{summary}。</translation>
    </message>
</context>
<context>
    <name>LibraryPage</name>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="57"/>
        <source>This computer</source>
        <translation>这台电脑</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="60"/>
        <source>Your documents and their index are kept in one file: {path}</source>
        <translation>你的文档及其索引保存在一个文件中：{path}</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="61"/>
        <source>(the default library file)</source>
        <translation>（默认资料库文件）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="67"/>
        <source>A team library (PostgreSQL server)</source>
        <translation>团队资料库（PostgreSQL 服务器）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="74"/>
        <source>Several people search and add to one library on a shared server. Each person&apos;s own documents stay theirs; shared ones are seen by everyone. The server needs PostgreSQL 13 or newer with the pgvector extension (0.5 or newer).</source>
        <translation>多人在一台共享服务器上的同一个资料库中搜索和添加文档。每个人自己的文档只属于自己；共享文档所有人可见。服务器需要 PostgreSQL 13 或更高版本，并安装 pgvector 扩展（0.5 或更高版本）。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="88"/>
        <source>Server address</source>
        <translation>服务器地址</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="93"/>
        <source>User name</source>
        <translation>用户名</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="98"/>
        <source>Password</source>
        <translation>密码</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="103"/>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="187"/>
        <source>No system keyring was found on this computer, so the password cannot be saved. It is kept in memory until you close the app, and never written to a file.</source>
        <translation>本机未找到系统钥匙串，因此无法保存密码。密码只在内存中保留到你关闭应用为止，绝不会写入文件。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="193"/>
        <source>A password is saved in the system keyring. Type a new one to replace it.</source>
        <translation>系统钥匙串中已保存密码。输入新密码即可替换。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="196"/>
        <source>The password is stored in the system keyring, never in a file.</source>
        <translation>密码保存在系统钥匙串中，绝不会写入文件。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="206"/>
        <source>Type the server address first.</source>
        <translation>请先输入服务器地址。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="210"/>
        <source>Connecting…</source>
        <translation>正在连接…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="229"/>
        <source>Connected: PostgreSQL {server} with pgvector {vector}.</source>
        <translation>已连接：PostgreSQL {server}，pgvector {vector}。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="234"/>
        <source>Connected: PostgreSQL {server}. pgvector is installed and will be enabled when the library is first opened.</source>
        <translation>已连接：PostgreSQL {server}。pgvector 已安装，首次打开资料库时将启用。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="237"/>
        <source>The team library can be used.</source>
        <translation>可以使用该团队资料库。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="244"/>
        <source>This is not a PostgreSQL address.</source>
        <translation>这不是 PostgreSQL 地址。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="245"/>
        <source>The server cannot be reached.</source>
        <translation>无法连接到服务器。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="246"/>
        <source>The user name or the password is wrong.</source>
        <translation>用户名或密码错误。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="247"/>
        <source>The server needs a password.</source>
        <translation>服务器需要密码。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="248"/>
        <source>The server does not accept connections from here.</source>
        <translation>服务器不接受来自这台电脑的连接。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="249"/>
        <source>The database does not exist.</source>
        <translation>数据库不存在。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="250"/>
        <source>The pgvector extension is missing.</source>
        <translation>缺少 pgvector 扩展。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="251"/>
        <source>The server is too old.</source>
        <translation>服务器版本太旧。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="252"/>
        <source>This user may not create the library&apos;s tables.</source>
        <translation>该用户无权创建资料库的数据表。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/library_page.py" line="254"/>
        <source>The connection failed.</source>
        <translation>连接失败。</translation>
    </message>
</context>
<context>
    <name>LinkOffer</name>
    <message>
        <location filename="../../gui/agentmaker_desk/library/link_offer.py" line="28"/>
        <source>Keep folders in sync</source>
        <translation>保持文件夹同步</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/link_offer.py" line="36"/>
        <source>Keep in sync</source>
        <translation>保持同步</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/link_offer.py" line="40"/>
        <source>Not now</source>
        <translation>暂不</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/link_offer.py" line="63"/>
        <source>Keep “{name}” in sync? The library then follows the folder while the app runs: new and changed files are added, deleted ones removed.</source>
        <translation>要让“{name}”保持同步吗？应用运行时，资料库会跟随该文件夹：新增和修改的文件会被添加，删除的文件会被移除。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/link_offer.py" line="68"/>
        <source>Keep these {n} folders in sync? The library then follows them while the app runs: new and changed files are added, deleted ones removed.</source>
        <translation>要让这 {n} 个文件夹保持同步吗？应用运行时，资料库会跟随它们：新增和修改的文件会被添加，删除的文件会被移除。</translation>
    </message>
</context>
<context>
    <name>LinkedFoldersPage</name>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="62"/>
        <source>The library follows these folders while the app runs: new and changed files are added, deleted ones are removed. Changes on this page apply at once.</source>
        <translation>应用运行时，资料库会跟随这些文件夹：新增和修改的文件会被添加，删除的文件会被移除。本页的更改立即生效。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="70"/>
        <source>Linked folders</source>
        <translation>关联文件夹</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="73"/>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="73"/>
        <source>Files</source>
        <translation>文件数</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="73"/>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="73"/>
        <source>Last sync</source>
        <translation>上次同步</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="85"/>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="88"/>
        <source>Remove…</source>
        <translation>移除…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="91"/>
        <source>Sync now</source>
        <translation>立即同步</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="106"/>
        <source>Files to skip</source>
        <translation>要跳过的文件</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="108"/>
        <source>One pattern per line, for example:
*.tmp
drafts/
old-*.pdf</source>
        <translation>每行一个匹配规则，例如：
*.tmp
drafts/
old-*.pdf</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="111"/>
        <source>Save list</source>
        <translation>保存列表</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="114"/>
        <source>Skip these files</source>
        <translation>跳过这些文件</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="121"/>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="135"/>
        <source>Files that could not be read</source>
        <translation>无法读取的文件</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="123"/>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="123"/>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="129"/>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="131"/>
        <source>Try the selected files again (all when none is)</source>
        <translation>重试所选文件（未选择时重试全部）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="133"/>
        <source>Enter password…</source>
        <translation>输入密码…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="163"/>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="344"/>
        <source>Syncing…</source>
        <translation>正在同步…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="163"/>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="294"/>
        <source>Up to date.</source>
        <translation>已是最新。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="198"/>
        <source>Changes in this folder are not seen at once here; it is checked every minute instead.</source>
        <translation>此处无法即时发现该文件夹中的变化，改为每分钟检查一次。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="212"/>
        <source>No folder is linked yet. Add one to keep the library in step with it.</source>
        <translation>尚未关联任何文件夹。添加一个，让资料库与它保持一致。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="241"/>
        <source>not yet</source>
        <translation>尚未同步</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="244"/>
        <source>just now</source>
        <translation>刚刚</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="246"/>
        <source>{n} min ago</source>
        <translation>{n} 分钟前</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="282"/>
        <source>Cannot reach {folders}; its documents are kept until it is back.</source>
        <translation>无法访问 {folders}；在它恢复之前，其中的文档会保留。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="288"/>
        <source>Up to date: {added} added, {updated} updated, {removed} removed.</source>
        <translation>已是最新：添加 {added} 个，更新 {updated} 个，移除 {removed} 个。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="301"/>
        <source>Choose a folder to keep in sync</source>
        <translation>选择要保持同步的文件夹</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="308"/>
        <source>Linking “{name}”…</source>
        <translation>正在关联“{name}”…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="318"/>
        <source>Stop following this folder</source>
        <translation>停止跟随此文件夹</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="320"/>
        <source>Stop following “{folder}”? Its files themselves are not touched. Should its documents stay in the library?</source>
        <translation>要停止跟随“{folder}”吗？文件本身不会受影响。其中的文档要保留在资料库中吗？</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="328"/>
        <source>Keep its documents</source>
        <translation>保留其中的文档</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="330"/>
        <source>Remove its documents</source>
        <translation>移除其中的文档</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="352"/>
        <source>The list is saved; the folder is synced again.</source>
        <translation>列表已保存，文件夹将重新同步。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py" line="360"/>
        <source>Trying again…</source>
        <translation>正在重试…</translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/library/linked_folders_page.py"/>
        <source>Syncing “{name}”: {done} of %n file(s) looked at…</source>
        <translation>
            <numerusform>正在同步“{name}”：已检查 {done} / %n 个文件…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="71"/>
        <source>agentmaker Desk</source>
        <translation>agentmaker Desk</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_actions.py" line="39"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_actions.py" line="41"/>
        <source>Add files…</source>
        <translation>添加文件…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_actions.py" line="46"/>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_actions.py" line="50"/>
        <source>Open library…</source>
        <translation>打开资料库…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_actions.py" line="54"/>
        <source>Linked folders…</source>
        <translation>关联文件夹…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_actions.py" line="58"/>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_actions.py" line="64"/>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_actions.py" line="69"/>
        <source>Export conversation…</source>
        <translation>导出对话…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_actions.py" line="73"/>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_actions.py" line="89"/>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_actions.py" line="103"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_actions.py" line="104"/>
        <source>Settings (Ctrl+,)</source>
        <translation>设置（Ctrl+,）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="275"/>
        <source>No library is open.</source>
        <translation>没有打开的资料库。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="292"/>
        <source>Add files to the library</source>
        <translation>向资料库添加文件</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="300"/>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="310"/>
        <source>Add a folder to the library</source>
        <translation>向资料库添加文件夹</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="320"/>
        <source>Open or create a library</source>
        <translation>打开或新建资料库</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="322"/>
        <source>Libraries (*.agentmaker.sqlite *.sqlite)</source>
        <translation>资料库 (*.agentmaker.sqlite *.sqlite)</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="345"/>
        <source>{name} — agentmaker Desk</source>
        <translation>{name} — agentmaker Desk</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="353"/>
        <source>The library could not be opened</source>
        <translation>无法打开资料库</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="391"/>
        <source>It is in a linked folder, so it comes back at the next sync unless you add it to the folder&apos;s list of files to skip.</source>
        <translation>它位于关联文件夹中，除非把它加入该文件夹的跳过列表，否则下次同步时会重新出现。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="396"/>
        <source>Remove document</source>
        <translation>移除文档</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="387"/>
        <source>Remove “{name}” from the library? The file itself is not deleted.</source>
        <translation>要从资料库中移除“{name}”吗？文件本身不会被删除。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="102"/>
        <source>Chats</source>
        <translation>对话</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="103"/>
        <source>Library</source>
        <translation>资料库</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="147"/>
        <source>Answer copied.</source>
        <translation>回答已复制。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="205"/>
        <source>Conversation exported to {path}.</source>
        <translation>对话已导出到 {path}。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="288"/>
        <source>The library now follows the folder; see Settings › Linked folders.</source>
        <translation>资料库现在会跟随该文件夹；见“设置 › 关联文件夹”。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="297"/>
        <source>Documents (*.pdf *.docx *.md *.markdown *.txt *.html *.htm *.csv *.json *.jsonl *.epub *.png *.jpg *.jpeg *.tif *.tiff)</source>
        <translation>文档 (*.pdf *.docx *.md *.markdown *.txt *.html *.htm *.csv *.json *.jsonl *.epub *.png *.jpg *.jpeg *.tif *.tiff)</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="402"/>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py" line="487"/>
        <source>Re-computing search vectors with the new embedding model…</source>
        <translation>正在用新的嵌入模型重新计算搜索向量…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_chat.py" line="110"/>
        <source>There is no conversation to export yet.</source>
        <translation>还没有可以导出的对话。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_chat.py" line="113"/>
        <source>Export conversation</source>
        <translation>导出对话</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_chat.py" line="116"/>
        <source>Markdown (*.md)</source>
        <translation>Markdown（*.md）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_chat.py" line="117"/>
        <source>Web page (*.html)</source>
        <translation>网页（*.html）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/window_chat.py" line="159"/>
        <source>Showing the text the answer used.</source>
        <translation>显示的是回答所用的原文。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/main_window.py"/>
        <source>%n document(s)</source>
        <translation>
            <numerusform>%n 个文档</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py"/>
        <source>{documents}, {passages}</source>
        <translation>{documents}，{passages}</translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/main_window.py"/>
        <source>%Ln passage(s)</source>
        <translation>
            <numerusform>%Ln 个段落</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/main_window.py"/>
        <source>Drag to resize the list of files</source>
        <translation>拖动以调整文件列表的大小</translation>
    </message>
</context>
<context>
    <name>OpenFailedNotice</name>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/open_original.py"/>
        <source>Show in folder</source>
        <translation>在文件夹中显示</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/open_original.py"/>
        <source>Open the folder that holds the file</source>
        <translation>打开该文件所在的文件夹</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/open_original.py"/>
        <source>Copy path</source>
        <translation>复制路径</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/open_original.py"/>
        <source>Copy the file&apos;s full path to the clipboard</source>
        <translation>把文件的完整路径复制到剪贴板</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/open_original.py"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/open_original.py"/>
        <source>“{name}” could not be opened: this computer has no application set up to open it. Show its folder, or copy its path to open it yourself.</source>
        <translation>无法打开“{name}”：这台电脑上没有设置可以打开它的应用程序。可以显示它所在的文件夹，或复制它的路径自行打开。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/open_original.py"/>
        <source>No file manager could be opened either. The folder is {folder}; its path was copied to the clipboard.</source>
        <translation>也无法打开文件管理器。文件夹位于 {folder}，其路径已复制到剪贴板。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/open_original.py"/>
        <source>The path of “{name}” was copied to the clipboard.</source>
        <translation>“{name}”的路径已复制到剪贴板。</translation>
    </message>
</context>
<context>
    <name>PasswordDialog</name>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/password_dialog.py" line="29"/>
        <source>Password needed</source>
        <translation>需要密码</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/password_dialog.py" line="35"/>
        <source>“{name}” is protected by a password. Enter it to add the file.</source>
        <translation>“{name}”受密码保护。输入密码即可添加该文件。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/password_dialog.py" line="39"/>
        <source>That password did not open the file. Try again.</source>
        <translation>该密码无法打开此文件，请重试。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/password_dialog.py" line="45"/>
        <location filename="../../gui/agentmaker_desk/settings/password_dialog.py" line="46"/>
        <source>Password</source>
        <translation>密码</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/password_dialog.py" line="50"/>
        <source>Open file</source>
        <translation>打开文件</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/password_dialog.py" line="51"/>
        <source>Skip this file</source>
        <translation>跳过此文件</translation>
    </message>
</context>
<context>
    <name>PasswordFlow</name>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/settings/password_flow.py" line="47"/>
        <source>%n file(s) need a password: use “Enter password…” on its row.</source>
        <translation>
            <numerusform>%n 个文件需要密码：请在其所在行使用“输入密码…”。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/settings/password_flow.py" line="56"/>
        <source>%n file(s) in linked folders need a password: enter it in Settings → Linked folders.</source>
        <translation>
            <numerusform>关联文件夹中有 %n 个文件需要密码：请在“设置 → 关联文件夹”中输入。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Screenshots</name>
    <message>
        <location filename="../../gui/agentmaker_desk/screenshots.py" line="204"/>
        <source>Scanned contract.pdf: is password-protected. Enter its password to index it.</source>
        <extracomment>The size of a common laptop screen: the chat must be readable there.</extracomment>
        <translation>Scanned contract.pdf：受密码保护。输入密码后即可索引。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/screenshots.py" line="242"/>
        <source>What does error code E2 on the boiler mean?</source>
        <translation>锅炉错误代码 E2 是什么意思？</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/screenshots.py" line="256"/>
        <source>How much is the deposit and when do I get it back?</source>
        <translation>押金是多少？什么时候退还？</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/screenshots.py" line="260"/>
        <source>And what if something is damaged?</source>
        <translation>那如果有东西损坏了呢？</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/screenshots.py" line="270"/>
        <source>Who repairs the heating?</source>
        <translation>暖气由谁维修？</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="92"/>
        <source>Library</source>
        <translation>资料库</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="70"/>
        <source>Settings</source>
        <extracomment>Looks for local model servers; returns objects with ``kind``, ``base_url``, ``models``.</extracomment>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="79"/>
        <source>Language model</source>
        <translation>语言模型</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="80"/>
        <source>Embeddings</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="81"/>
        <source>Retrieval</source>
        <translation>检索</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="82"/>
        <source>Scanned documents</source>
        <translation>扫描文档</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="86"/>
        <source>Linked folders</source>
        <translation>关联文件夹</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="87"/>
        <source>Interface</source>
        <translation>界面</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="92"/>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="93"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="110"/>
        <source>None — extractive answers from your documents</source>
        <translation>不使用——直接摘录文档中的内容作答</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="111"/>
        <source>Ollama (on this computer)</source>
        <translation>Ollama（本机）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="112"/>
        <source>LM Studio (on this computer)</source>
        <translation>LM Studio（本机）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="113"/>
        <source>OpenAI</source>
        <translation>OpenAI</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="114"/>
        <source>Other OpenAI-compatible server</source>
        <translation>其他兼容 OpenAI 的服务器</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="118"/>
        <source>Look for Ollama / LM Studio</source>
        <translation>查找 Ollama / LM Studio</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="134"/>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="146"/>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="142"/>
        <source>Answers written by</source>
        <translation>回答生成方式</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="144"/>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="174"/>
        <source>Server address</source>
        <translation>服务器地址</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="145"/>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="175"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="156"/>
        <source>Built-in, multilingual (offline, no setup)</source>
        <translation>内置，多语言（离线，无需设置）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="159"/>
        <source>Built-in, English only, fastest (offline, no setup)</source>
        <translation>内置，仅英文，最快（离线，无需设置）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="161"/>
        <source>A server (OpenAI-compatible)</source>
        <translation>服务器（兼容 OpenAI）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="173"/>
        <source>Embedding model</source>
        <translation>嵌入模型</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="185"/>
        <source>Re-rank passages (more precise, slower)</source>
        <translation>对段落重新排序（更准确，但更慢）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="187"/>
        <source>Search with several phrasings of the question (uses the language model)</source>
        <translation>用问题的多种说法进行搜索（使用语言模型）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="191"/>
        <source>Search with a drafted answer (HyDE; uses the language model)</source>
        <translation>用预先草拟的回答进行搜索（HyDE；使用语言模型）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="195"/>
        <source> passages on each side</source>
        <translation> 个相邻段落（每侧）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="197"/>
        <source>Index each passage with its headings (applies to files added later)</source>
        <translation>索引段落时附带其标题（对之后添加的文件生效）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="202"/>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="211"/>
        <source>Cohere API key</source>
        <translation>Cohere API 密钥</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="204"/>
        <source>Saved in the system keyring</source>
        <translation>已保存在系统钥匙串中</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="206"/>
        <source>Needed for re-ranking (sends passages to Cohere)</source>
        <translation>重排序需要（会把段落发送给 Cohere）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="208"/>
        <source>Passages per answer</source>
        <translation>每个回答使用的段落数</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="209"/>
        <source>Show neighbouring text</source>
        <translation>显示相邻文本</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="220"/>
        <source>Read scanned pages (OCR)</source>
        <translation>识别扫描页（OCR）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="224"/>
        <source>Pictures (PNG, JPEG, TIFF) and PDF pages without text are read on this computer; nothing is sent anywhere. Reading takes a few seconds per page and runs in the background. When this is off, scanned PDFs are remembered and read once it is turned on again.</source>
        <translation>图片（PNG、JPEG、TIFF）和没有文字的 PDF 页面会在本机识别，不会发送到任何地方。每页需要几秒钟，在后台进行。关闭时，扫描的 PDF 会被记下，重新开启后再识别。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="236"/>
        <source>Try the failed ones again</source>
        <translation>重试失败的文档</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="245"/>
        <source>This installation of the app does not include OCR, so scans stay unread.</source>
        <translation>此安装版本的应用不包含 OCR，扫描件将不会被识别。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="259"/>
        <source>{n} could not be read.</source>
        <translation>{n} 个无法识别。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="271"/>
        <source>Same as the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="274"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="386"/>
        <source>Without a language model, answers quote the best passages.</source>
        <translation>不使用语言模型时，回答会直接引用最相关的段落。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="393"/>
        <source>A key is saved in the system keyring. Type a new one to replace it.</source>
        <translation>系统钥匙串中已保存密钥。输入新密钥即可替换。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="395"/>
        <source>The key is stored in the system keyring, never in a file.</source>
        <translation>密钥保存在系统钥匙串中，绝不会写入文件。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="399"/>
        <source>No system keyring was found on this computer, so the key cannot be saved. It is kept in memory until you close the app, and never written to a file.</source>
        <translation>本机未找到系统钥匙串，因此无法保存密钥。密钥只在内存中保留到你关闭应用为止，绝不会写入文件。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="403"/>
        <source>Local servers usually need no key.</source>
        <translation>本机服务器通常不需要密钥。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="422"/>
        <source>The embedding model turns passages into vectors for searching by meaning. The built-in one works offline.</source>
        <translation>嵌入模型把段落转换为向量，用于按语义搜索。内置模型可离线使用。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="431"/>
        <source>Looking…</source>
        <translation>正在查找…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py" line="451"/>
        <source>No Ollama or LM Studio is running.</source>
        <translation>没有正在运行的 Ollama 或 LM Studio。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py"/>
        <source>A model on this computer (a .gguf file)</source>
        <translation>本机上的模型（.gguf 文件）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py"/>
        <source>On this computer</source>
        <translation>本机上</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py"/>
        <source>The model runs on this computer: nothing is sent anywhere.</source>
        <translation>模型在本机上运行：不会向任何地方发送数据。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/settings/dialog.py"/>
        <source>%n scanned document(s) are waiting to be read.</source>
        <translation>
            <numerusform>%n 个扫描文档正在等待识别。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/settings/dialog.py"/>
        <source>%n scanned document(s) were read.</source>
        <translation>
            <numerusform>已识别 %n 个扫描文档。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/settings/dialog.py"/>
        <source>Changing the embedding model re-computes the search vectors of all %Ln passage(s) in your library. This runs in the background after you save; you can keep reading meanwhile, and searching uses the new model when it is done.</source>
        <translation>
            <numerusform>更换嵌入模型会为资料库中全部 %Ln 个段落重新计算搜索向量。保存后将在后台进行；期间你可以继续阅读，完成后搜索将使用新模型。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../gui/agentmaker_desk/settings/dialog.py"/>
        <source>{kind} at {url} (%n model(s))</source>
        <translation>
            <numerusform>{kind}：{url}（%n 个模型）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py"/>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py"/>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/dialog.py"/>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
</context>
<context>
    <name>SourceView</name>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/source_view.py" line="113"/>
        <source>Open original file</source>
        <extracomment>Documents longer than this are shown as a window around the passage. Characters of context kept on each side of the passage in a window.</extracomment>
        <translation>打开原始文件</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/source_view.py" line="114"/>
        <source>Open the document in its own application</source>
        <translation>用对应的应用程序打开该文档</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/source_view.py" line="121"/>
        <source>Document text</source>
        <translation>文档文本</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/source_view.py" line="123"/>
        <source>Click a citation [n] or a source to see the passage in its document.</source>
        <translation>点击引用 [n] 或某个来源，即可在文档中查看该段落。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/source_view.py" line="159"/>
        <source>(untitled)</source>
        <translation>（无标题）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/source_view.py" line="180"/>
        <source>The full document text is not available; showing the passage only.</source>
        <translation>无法获取完整的文档文本，仅显示该段落。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/source_view.py" line="187"/>
        <source>Long document: showing characters {a}–{b} of {n} around the passage.</source>
        <translation>文档较长：显示段落附近的第 {a}–{b} 个字符（共 {n} 个）。</translation>
    </message>
</context>
<context>
    <name>SourcesView</name>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/source_labels.py" line="42"/>
        <source>slide {number}</source>
        <translation>第 {number} 张幻灯片</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/source_labels.py" line="50"/>
        <source>Sheet &apos;{sheet}&apos;, row {row}</source>
        <translation>工作表“{sheet}”，第 {row} 行</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/source_labels.py" line="54"/>
        <source>Sheet &apos;{sheet}&apos;, rows {first}–{last}</source>
        <translation>工作表“{sheet}”，第 {first}–{last} 行</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/source_labels.py" line="57"/>
        <source>Sheet &apos;{sheet}&apos;</source>
        <translation>工作表“{sheet}”</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/source_labels.py" line="21"/>
        <source>(untitled)</source>
        <translation>（无标题）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/source_labels.py" line="29"/>
        <source>p. {label} ({page})</source>
        <translation>第 {label} 页（{page}）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/source_labels.py" line="32"/>
        <source>p. {page}</source>
        <translation>第 {page} 页</translation>
    </message>
</context>
<context>
    <name>TranscriptView</name>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="35"/>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="36"/>
        <source>matched the words {words}</source>
        <translation>匹配了词语 {words}</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="37"/>
        <source>matched your words</source>
        <translation>匹配了你的用词</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="38"/>
        <source>close in meaning</source>
        <translation>语义相近</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="39"/>
        <source>next to a passage that was found</source>
        <translation>与找到的段落相邻</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="40"/>
        <source>read by OCR</source>
        <translation>通过 OCR 识别</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="41"/>
        <source>ranked high by the re-ranker</source>
        <translation>重排序模型认为高度相关</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="42"/>
        <source>this passage has changed since</source>
        <translation>此段落之后已更改</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="43"/>
        <source>document removed</source>
        <translation>文档已移除</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="44"/>
        <source>Sources:</source>
        <translation>来源：</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="45"/>
        <source>Stopped.</source>
        <translation>已停止。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="46"/>
        <source>Searching your documents…</source>
        <translation>正在搜索你的文档…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="47"/>
        <source>Writing the answer…</source>
        <translation>正在撰写回答…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="48"/>
        <source>No answer was produced.</source>
        <translation>没有生成回答。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="142"/>
        <source>Conversation</source>
        <extracomment>A language model is set up: extractive answers offer &quot;Write with a model&quot;.</extracomment>
        <translation>对话</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="361"/>
        <source>Ask a question about your documents below. Follow-up questions remember this chat.</source>
        <translation>在下方就你的文档提问。追问时会记住本次对话。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="374"/>
        <source>Searched: {query}</source>
        <translation>搜索的是：{query}</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="393"/>
        <source>Extractive answer (no model)</source>
        <translation>摘录式回答（无模型）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="399"/>
        <source>Hide sources ({n})</source>
        <translation>隐藏来源（{n}）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="399"/>
        <source>Show sources ({n})</source>
        <translation>显示来源（{n}）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="402"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="402"/>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py" line="408"/>
        <source>Write with a model</source>
        <translation>用模型重写</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py"/>
        <source>I found nothing about this in your documents. Try other words, or add the documents that cover it.</source>
        <translation>在您的文档中没有找到与此相关的内容。请换个说法，或添加涵盖此内容的文档。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py"/>
        <source>The passages below were found for this question, but none has a sentence to quote as an answer; open them to read more.</source>
        <translation>为这个问题找到了下面的段落，但其中没有可以直接引用作答的句子；请打开它们阅读更多内容。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/transcript.py"/>
        <source>Your documents do not seem to answer this: none of the passages found says it. The passages looked at are listed below.</source>
        <translation>文档中没有找到这个问题的答案。下面列出了查看过的段落。</translation>
    </message>
</context>
<context>
    <name>ModelOffer</name>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/model_offer.py"/>
        <source>Answers written by a model on this computer: download {name}, {size}, once. Until then, answers quote your documents.</source>
        <translation>由本机上的模型撰写回答：下载 {name}（{size}，只需一次）。在此之前，回答将引用您的文档原文。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/model_offer.py"/>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/model_offer.py"/>
        <source>Use a model file on this computer…</source>
        <translation>使用本机上的模型文件…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/chat/model_offer.py"/>
        <source>Not now</source>
        <translation>暂不</translation>
    </message>
</context>
<context>
    <name>DownloadProgress</name>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/download_progress.py"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/download_progress.py"/>
        <source>Cancel the download</source>
        <translation>取消下载</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/download_progress.py"/>
        <source>Starting the download…</source>
        <translation>正在开始下载…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/download_progress.py"/>
        <source>, {minutes} min left</source>
        <translation>，剩余 {minutes} 分钟</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/download_progress.py"/>
        <source>{done:.2f} of {total:.2f} GB at {speed:.1f} MB/s</source>
        <translation>已下载 {done:.2f} / {total:.2f} GB，速度 {speed:.1f} MB/s</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/download_progress.py"/>
        <source>The model is ready. Answers are now written by it.</source>
        <translation>模型已就绪，现在由它撰写回答。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/download_progress.py"/>
        <source>Download cancelled. Nothing was kept.</source>
        <translation>下载已取消，未保留任何文件。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/download_progress.py"/>
        <source>Choose a model file</source>
        <translation>选择模型文件</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/widgets/download_progress.py"/>
        <source>GGUF model files (*.gguf)</source>
        <translation>GGUF 模型文件 (*.gguf)</translation>
    </message>
</context>
<context>
    <name>LocalModelsPanel</name>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/local_models.py"/>
        <source>Models on this computer</source>
        <translation>本机上的模型</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/local_models.py"/>
        <source>No model on this computer yet.</source>
        <translation>本机上还没有模型。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/local_models.py"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/local_models.py"/>
        <source>Use a model file on this computer…</source>
        <translation>使用本机上的模型文件…</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/local_models.py"/>
        <source>Recommended models</source>
        <translation>推荐的模型</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/local_models.py"/>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/local_models.py"/>
        <source>{name} — {size:.2f} GB</source>
        <translation>{name} — {size:.2f} GB</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/local_models.py"/>
        <source>your file, used where it is</source>
        <translation>您的文件，在原位置使用</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/local_models.py"/>
        <source>{name}, {size} download, needs {ram:.0f} GB of memory</source>
        <translation>{name}，下载 {size}，需要 {ram:.0f} GB 内存</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/local_models.py"/>
        <source>(recommended for this computer)</source>
        <translation>（推荐用于本机）</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/local_models.py"/>
        <source>Remove from the list</source>
        <translation>从列表中移除</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/local_models.py"/>
        <source>Delete the model?</source>
        <translation>删除该模型？</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/local_models.py"/>
        <source>Delete {name} from this computer? It frees {size:.2f} GB; you can download it again later.</source>
        <translation>要从本机删除 {name} 吗？这将释放 {size:.2f} GB；以后可以重新下载。</translation>
    </message>
    <message>
        <location filename="../../gui/agentmaker_desk/settings/local_models.py"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
</TS>
