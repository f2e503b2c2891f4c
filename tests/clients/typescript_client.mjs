// An editor written with the official TypeScript ACP SDK (npm `@agentclientprotocol/sdk`), with
// the file-system and terminal capabilities OFF, driving the real `tandem acp`: a streamed
// answer, tool calls behind permission prompts, the plan, cancel, and load of the session in a
// new process. The SDK's zod schemas validate every request and notification Tandem sends; this
// client validates each response with the same schemas. Any rejection fails (exit 1).
// Prints a JSON summary. Usage: node typescript_client.mjs <tandem> <project> <sdk dir>
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [tandem, project, sdkDir] = process.argv.slice(2);
const sdk = await import(pathToFileURL(join(sdkDir, "dist/v1/stable/acp.js")).href);
const zod = await import(pathToFileURL(join(sdkDir, "dist/v1/schema/zod.gen.js")).href);
const problems = [];

// The SDK reports messages it cannot parse on the console: each one is a failure.
for (const level of ["error", "warn"]) {
  const original = console[level];
  console[level] = (...args) => {
    problems.push(`console.${level}: ${args.map(String).join(" ")}`);
    original(...args);
  };
}

function check(condition, what) {
  if (!condition) problems.push(what);
}

/** Validates a response from Tandem against the SDK's schema for it. */
function valid(schema, response, what) {
  const result = schema.safeParse(response);
  if (!result.success) problems.push(`${what} rejected: ${result.error.message}`);
  return response;
}

class Editor {
  updates = [];
  permissions = [];
  fsCalls = 0;

  app() {
    const { methods } = sdk;
    const deny = async () => {
      this.fsCalls += 1;
      throw new Error("this client has no fs or terminal");
    };
    return sdk
      .client({ name: "tandem-ts-test" })
      .onRequest(methods.client.session.requestPermission, async ({ params }) => {
        this.permissions.push({ title: params.toolCall.title, options: params.options.map((o) => o.kind) });
        const allow = params.options.find((o) => o.kind === "allow_once");
        return { outcome: { outcome: "selected", optionId: allow.optionId } };
      })
      .onNotification(methods.client.session.update, async ({ params }) => {
        this.updates.push(params.update);
      })
      .onRequest(methods.client.fs.writeTextFile, deny)
      .onRequest(methods.client.fs.readTextFile, deny)
      .onRequest(methods.client.terminal.create, deny);
  }

  texts(kind) {
    return this.updates
      .filter((u) => u.sessionUpdate === kind)
      .map((u) => u.content?.text ?? "")
      .join("");
  }
}

/** Starts `tandem acp` and runs `op` with the agent context until it resolves. */
async function withAgent(editor, op) {
  const child = spawn(tandem, ["acp"], { cwd: project, stdio: ["pipe", "pipe", "inherit"] });
  const stream = sdk.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  try {
    return await editor.app().connectWith(stream, async (agent) => {
      const init = valid(
        zod.zInitializeResponse,
        await agent.request(sdk.methods.agent.initialize, {
          protocolVersion: 1,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "tandem-ts-test", version: "0" },
        }),
        "initialize",
      );
      check(init.agentInfo?.name === "tandem", "agentInfo");
      return await op(agent, init);
    });
  } finally {
    child.kill();
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const summary = {};
  const editor = new Editor();
  const { methods } = sdk;
  let sessionId;
  await withAgent(editor, async (agent) => {
    const session = valid(
      zod.zNewSessionResponse,
      await agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] }),
      "session/new",
    );
    sessionId = session.sessionId;
    const prompt = async (text) =>
      valid(
        zod.zPromptResponse,
        await agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] }),
        "session/prompt",
      );

    // 1. A streamed answer.
    const first = await prompt("hello");
    check(first.stopReason === "end_turn", `first stop ${first.stopReason}`);
    summary.answer = editor.texts("agent_message_chunk");
    summary.answer_chunks = editor.updates.filter((u) => u.sessionUpdate === "agent_message_chunk").length;

    // 2. Tool calls behind permission prompts, Tandem writing and running them itself; the plan.
    editor.updates = [];
    const work = await prompt("write notes and run them");
    check(work.stopReason === "end_turn", `second stop ${work.stopReason}`);
    summary.permissions = editor.permissions;
    const calls = editor.updates.filter((u) => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update");
    summary.tool_statuses = calls.map((u) => u.status).filter(Boolean);
    summary.bash_output = JSON.stringify(calls.filter((u) => u.status === "completed"));
    const plans = editor.updates.filter((u) => u.sessionUpdate === "plan");
    summary.plan = plans.length ? plans[plans.length - 1].entries : [];

    // 3. Cancel a turn while it streams.
    editor.updates = [];
    const turn = prompt("talk for a while");
    for (let i = 0; i < 400 && !editor.texts("agent_message_chunk"); i++) await sleep(25);
    await agent.notify(methods.agent.session.cancel, { sessionId });
    summary.cancel_stop = (await turn).stopReason;
  });
  summary.fs_calls = editor.fsCalls;

  // 4. Load the session in a new process: the history is replayed.
  const loader = new Editor();
  await withAgent(loader, async (agent, init) => {
    check(init.agentCapabilities?.loadSession === true, "loadSession capability");
    valid(
      zod.zLoadSessionResponse,
      await agent.request(methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] }),
      "session/load",
    );
    summary.replayed_user = loader.texts("user_message_chunk");
    summary.replayed_agent = loader.texts("agent_message_chunk");
  });
  summary.session_id = sessionId;
  return summary;
}

let summary = {};
try {
  summary = await Promise.race([
    main(),
    sleep(120_000).then(() => {
      throw new Error("timed out");
    }),
  ]);
} catch (error) {
  problems.push(`${error?.name}: ${error?.message}`);
}
summary.problems = problems;
process.stdout.write(JSON.stringify(summary) + "\n");
process.exit(problems.length ? 1 : 0);
