/**
 * A task whose OXP call waits in the bridge for a connection to its upstream says so in its statusMessage: every one
 * of `upstream.connections` is busy (with other calls, most often other long tasks), so the task is `working` but its
 * call has not reached the tool server yet (docs/configuration.md, "Tasks and upstream connections"). Once it gets a
 * connection the message says that the call is running. A task whose call never waits writes nothing here.
 *
 * The call may start before its task exists (2026-07-28: an `optional` tool's call becomes a task after
 * `taskAfterMs`): what it met before is said once the task's control is attached.
 */
import type { TaskControl } from '../../calls/tasks/lifecycle.js';

export const waitingMessage = (upstream: string) =>
  `Waiting in the bridge for a connection to upstream ${upstream}: all of its upstream.connections are in use; the call starts when one frees.`;
export const runningMessage = (upstream: string) => `Running: the call got a connection to upstream ${upstream}.`;

export class ConnectionWaitNote {
  private control: TaskControl | undefined;
  /** The last thing worth saying (undefined: the call never waited). */
  private message: string | undefined;

  /** For the call's context (CallContext.connectionWait). */
  readonly onWait = (upstream: string, waiting: boolean): void => {
    this.message = waiting ? waitingMessage(upstream) : runningMessage(upstream);
    void this.control?.setStatusMessage(this.message);
  };

  /** The task exists now: what the call met so far is said, and what it meets next. */
  attach(control: TaskControl): void {
    this.control = control;
    if (this.message !== undefined) void control.setStatusMessage(this.message);
  }
}
