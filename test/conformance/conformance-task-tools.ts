/**
 * OXP fixture tools for the ten `tasks-*` server scenarios of the MCP
 * conformance suite (0.2.0-alpha.12, SEP-2663: the 2026-07-28 tasks
 * extension `io.modelcontextprotocol/tasks`), and the task support each needs
 * from the bridge's configuration (TASK_SUPPORT). What each scenario asks of
 * the bridge: README.md in this folder, "Tasks".
 *
 * OXP has no asynchronous call: every tool here is an ordinary OXP tool; the
 * bridge makes its call a task (holding the OXP POST open) and answers
 * tasks/get, tasks/update and tasks/cancel itself.
 *
 * - `greet` (forbidden): `Hello, {name}!` at once.
 * - `slow_compute` (optional): answers after `seconds` s (0: at once), so
 *   the bridge answers plainly when the client did not declare the extension
 *   and with a task when it did and the call outlives the configured wait;
 *   cancelling the task aborts the OXP request (the fixture sees the
 *   connection close).
 * - `failing_job` (required): a tool error after about 1 s, which a task
 *   reports `completed` with `isError` (the scenarios' "tool error").
 * - `protocol_error_job` (required): its OXP server answers 404, the tool
 *   is unknown to it: the one OXP answer the bridge turns into a JSON-RPC
 *   error (-32602) on a plain call, so the task ends `failed` with that error.
 *   (An OXP 500 is a tool error with `isError` on a plain call, so it would
 *   end `completed`.)
 * - `confirm_delete` (required): OXP's only way to ask for input is an
 *   authorization challenge (`missing_requirements.authorization`, a URL); the
 *   first call of a `call_id` answers one, the same `call_id` again (the
 *   bridge's resume after the user's answer) deletes.
 * - `multi_input` (required): the same with two challenges at once.
 * - `test_tool_with_task` (required): the same with one challenge; the
 *   scenario wants the name typed into a form in the result, which no OXP
 *   call can carry (baselined).
 */
import type { FixtureReply, FixtureTool, OxpCallRequest } from '../fixtures/oxp-fixture-server.js';

export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** Per tool: the `execution.taskSupport` the bridge must declare for it (the other tools keep the default, optional). */
export const TASK_SUPPORT: Readonly<Record<string, TaskSupport>> = {
  greet: 'forbidden',
  slow_compute: 'optional',
  failing_job: 'required',
  protocol_error_job: 'required',
  confirm_delete: 'required',
  multi_input: 'required',
  test_tool_with_task: 'required',
};

/** The authorization pages the input tools send the user to (never opened by the suite). */
export const CONFIRM_URL = 'https://auth.example.com/confirm?state=conformance';
const MAX_SECONDS = 600;
const FAILING_JOB_DELAY_MS = 1_000;

/**
 * A tool that asks for authorizations first: the first call of each `call_id` answers the challenge, a later call
 * with the same `call_id` (the bridge resumes an interrupted call with its id) runs. Bounded: a run makes a handful.
 */
function askingFirst(ids: readonly string[], then: (req: OxpCallRequest) => FixtureReply): (req: OxpCallRequest) => FixtureReply {
  const asked = new Set<string>();
  return (req) => {
    const callId = req.call_id ?? '';
    if (asked.has(callId)) return then(req);
    if (asked.size > 1_000) asked.clear();
    asked.add(callId);
    const authorization = ids.map((id) => ({ id, url: `${CONFIRM_URL}&input=${id}` }));
    return { http: { status: 400, body: { $schema: 'urn:oxp:1.0', message: 'Confirmation required', missing_requirements: { authorization } } } };
  };
}

const object = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
});

export function taskTools(): FixtureTool[] {
  return [
    {
      id: 'Conformance.Greet',
      name: 'greet',
      description: 'Greets by name at once (tasks scenarios: the sync-only tool).',
      version: '1.0.0',
      input_schema: object({ name: { type: 'string' } }, ['name']),
      output_schema: { type: 'string' },
      handler: (req) => ({ value: `Hello, ${String(req.input?.name)}!` }),
    },
    {
      id: 'Conformance.SlowCompute',
      name: 'slow_compute',
      description: 'Computes for `seconds` seconds (tasks scenarios: the task-supporting tool).',
      version: '1.0.0',
      input_schema: object({ seconds: { type: 'number', minimum: 0, maximum: MAX_SECONDS }, label: { type: 'string' } }, ['seconds']),
      output_schema: { type: 'string' },
      handler: (req) => {
        const seconds = Number(req.input?.seconds ?? 0);
        const value = `Computed ${String(req.input?.label ?? 'result')} in ${seconds} s.`;
        return seconds > 0 ? { delayMs: seconds * 1000, then: { value } } : { value };
      },
    },
    {
      id: 'Conformance.FailingJob',
      name: 'failing_job',
      description: 'Fails with a tool error after about a second (tasks scenarios).',
      version: '1.0.0',
      input_schema: object({}),
      handler: () => ({
        delayMs: FAILING_JOB_DELAY_MS,
        then: { error: { message: 'The job failed, as this conformance fixture always does.', can_retry: false } },
      }),
    },
    {
      id: 'Conformance.ProtocolErrorJob',
      name: 'protocol_error_job',
      description: 'Its tool server answers that it does not know it (tasks scenarios: a protocol-level error).',
      version: '1.0.0',
      input_schema: object({}),
      handler: () => ({
        delayMs: 200,
        then: { http: { status: 404, body: { $schema: 'urn:oxp:1.0', message: "Tool 'Conformance.ProtocolErrorJob' was not found" } } },
      }),
    },
    {
      id: 'Conformance.ConfirmDelete',
      name: 'confirm_delete',
      description: 'Deletes a file once the user confirmed (tasks scenarios: one request for input).',
      version: '1.0.0',
      input_schema: object({ filename: { type: 'string' } }, ['filename']),
      output_schema: { type: 'string' },
      handler: askingFirst(['confirm'], (req) => ({ value: `Deleted ${String(req.input?.filename)}.` })),
    },
    {
      id: 'Conformance.MultiInput',
      name: 'multi_input',
      description: 'Needs two confirmations at once (tasks scenarios: two requests for input).',
      version: '1.0.0',
      input_schema: object({}),
      output_schema: { type: 'string' },
      handler: askingFirst(['first', 'second'], () => ({ value: 'Both inputs received.' })),
    },
    {
      id: 'Conformance.ToolWithTask',
      name: 'test_tool_with_task',
      description: 'Asks for a confirmation, then works as a task (tasks scenarios: input before the task).',
      version: '1.0.0',
      input_schema: object({}),
      output_schema: { type: 'string' },
      handler: askingFirst(['user_name'], () => ({ delayMs: 500, then: { value: 'Hello! (OXP cannot carry a name typed into a form.)' } })),
    },
  ];
}
