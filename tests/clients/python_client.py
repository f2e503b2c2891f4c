"""An editor written with the official Python ACP SDK (PyPI `agent-client-protocol`), with the
file-system and terminal capabilities ON, driving the real `tandem acp`: a streamed answer, tool
calls behind permission prompts (write through the client's fs, bash in the client's terminal),
the plan, cancel, and load of the session in a new process. Every message Tandem sends is
validated by the SDK's pydantic models; any rejection (or a failed check) exits non-zero.
Prints a JSON summary on stdout. Usage: python_client.py <tandem binary> <project dir>."""

import asyncio
import json
import logging
import os
import sys

import acp
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    FileSystemCapabilities,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

TANDEM, PROJECT = sys.argv[1], sys.argv[2]
PROBLEMS: list[str] = []


class Recorder(logging.Handler):
    """The SDK logs (and drops) a notification its schema rejects: record it as a failure."""

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            PROBLEMS.append(f"SDK {record.levelname}: {record.getMessage()} {record.exc_info or ''}")


logging.getLogger().addHandler(Recorder())
logging.getLogger().setLevel(logging.WARNING)


def check(condition: bool, what: str) -> None:
    if not condition:
        PROBLEMS.append(what)


class Terminal:
    def __init__(self, process: asyncio.subprocess.Process):
        self.process = process
        self.output = b""
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while chunk := await self.process.stdout.read(4096):
            self.output += chunk


class Editor:
    """What an editor does: show updates, answer permission prompts, serve fs and terminals."""

    def __init__(self) -> None:
        self.updates: list[dict] = []
        self.permissions: list[dict] = []
        self.writes: list[tuple[str, str]] = []
        self.terminals: dict[str, Terminal] = {}
        self.commands: list[str] = []

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        self.permissions.append({"title": tool_call.title, "options": [o.kind for o in options]})
        allow = next(o for o in options if o.kind == "allow_once")
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=allow.option_id))

    async def session_update(self, session_id, update, **kwargs):
        self.updates.append(update.model_dump(mode="json", by_alias=True, exclude_none=True))

    async def write_text_file(self, session_id, path, content, **kwargs):
        check(os.path.isabs(path), f"write_text_file path is not absolute: {path}")
        self.writes.append((path, content))
        with open(path, "w", encoding="utf-8") as f:
            f.write(content)
        return WriteTextFileResponse()

    async def read_text_file(self, session_id, path, line=None, limit=None, **kwargs):
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines(keepends=True)
        start = (line or 1) - 1
        end = start + limit if limit else None
        return ReadTextFileResponse(content="".join(lines[start:end]))

    async def create_terminal(self, session_id, command, args=None, env=None, cwd=None, output_byte_limit=None, **kwargs):
        full = [command, *(args or [])]
        self.commands.append(" ".join(full))
        environment = dict(os.environ)
        for var in env or []:
            environment[var.name] = var.value
        process = await asyncio.create_subprocess_exec(
            *full, cwd=cwd or PROJECT, env=environment,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )
        terminal_id = f"term-{len(self.terminals) + 1}"
        self.terminals[terminal_id] = Terminal(process)
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(self, session_id, terminal_id, **kwargs):
        term = self.terminals[terminal_id]
        status = None
        if term.process.returncode is not None:
            await term.reader
            status = {"exitCode": term.process.returncode}
        return TerminalOutputResponse.model_validate(
            {"output": term.output.decode(errors="replace"), "truncated": False, "exitStatus": status}
        )

    async def wait_for_terminal_exit(self, session_id, terminal_id, **kwargs):
        term = self.terminals[terminal_id]
        code = await term.process.wait()
        await term.reader
        return WaitForTerminalExitResponse(exit_code=code)

    async def kill_terminal(self, session_id, terminal_id, **kwargs):
        term = self.terminals[terminal_id]
        if term.process.returncode is None:
            term.process.kill()
        return None

    async def release_terminal(self, session_id, terminal_id, **kwargs):
        term = self.terminals.pop(terminal_id, None)
        if term and term.process.returncode is None:
            term.process.kill()
        return ReleaseTerminalResponse()

    async def ext_method(self, method, params):
        return {}

    async def ext_notification(self, method, params):
        return None

    def on_connect(self, conn):
        pass

    def texts(self, kind: str) -> str:
        return "".join(u["content"].get("text", "") for u in self.updates if u["sessionUpdate"] == kind)

    def kinds(self) -> list[str]:
        return [u["sessionUpdate"] for u in self.updates]


CAPABILITIES = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True)


async def main() -> dict:
    summary: dict = {}
    editor = Editor()
    async with acp.spawn_agent_process(editor, TANDEM, "acp", cwd=PROJECT, env=dict(os.environ)) as (conn, _):
        init = await conn.initialize(protocol_version=1, client_capabilities=CAPABILITIES)
        check(init.agent_info is not None and init.agent_info.name == "tandem", "agentInfo")
        session = await conn.new_session(cwd=PROJECT, mcp_servers=[])
        sid = session.session_id

        # 1. A streamed answer.
        answer = await conn.prompt(session_id=sid, prompt=[acp.text_block("hello")])
        check(answer.stop_reason == "end_turn", f"first stop {answer.stop_reason}")
        summary["answer"] = editor.texts("agent_message_chunk")
        summary["answer_chunks"] = editor.kinds().count("agent_message_chunk")

        # 2. Tool calls behind permission prompts, through the client's fs and terminal; the plan.
        editor.updates.clear()
        work = await conn.prompt(session_id=sid, prompt=[acp.text_block("write notes and run them")])
        check(work.stop_reason == "end_turn", f"second stop {work.stop_reason}")
        summary["permissions"] = editor.permissions
        summary["writes"] = editor.writes
        summary["commands"] = editor.commands
        calls = [u for u in editor.updates if u["sessionUpdate"] in ("tool_call", "tool_call_update")]
        summary["tool_statuses"] = [u.get("status") for u in calls if u.get("status")]
        plans = [u for u in editor.updates if u["sessionUpdate"] == "plan"]
        summary["plan"] = plans[-1]["entries"] if plans else []
        summary["terminal_content"] = any(
            c.get("type") == "terminal" for u in calls for c in (u.get("content") or [])
        )

        # 3. Cancel a turn while it streams.
        editor.updates.clear()
        turn = asyncio.create_task(conn.prompt(session_id=sid, prompt=[acp.text_block("talk for a while")]))
        for _ in range(400):
            if editor.texts("agent_message_chunk"):
                break
            await asyncio.sleep(0.025)
        await conn.cancel(session_id=sid)
        cancelled = await asyncio.wait_for(turn, 30)
        summary["cancel_stop"] = cancelled.stop_reason

    # 4. Load the session in a new process: the history is replayed.
    loader = Editor()
    async with acp.spawn_agent_process(loader, TANDEM, "acp", cwd=PROJECT, env=dict(os.environ)) as (conn, _):
        init = await conn.initialize(protocol_version=1, client_capabilities=CAPABILITIES)
        check(init.agent_capabilities.load_session, "loadSession capability")
        await conn.load_session(cwd=PROJECT, session_id=sid, mcp_servers=[])
        summary["replayed_user"] = loader.texts("user_message_chunk")
        summary["replayed_agent"] = loader.texts("agent_message_chunk")
        summary["replayed_kinds"] = sorted(set(loader.kinds()))
    summary["session_id"] = sid
    return summary


if __name__ == "__main__":
    try:
        result = asyncio.run(asyncio.wait_for(main(), 120))
    except Exception as error:  # noqa: BLE001 - any failure is the test's failure
        PROBLEMS.append(f"{type(error).__name__}: {error}")
        result = {}
    result["problems"] = PROBLEMS
    print(json.dumps(result))
    sys.exit(1 if PROBLEMS else 0)
