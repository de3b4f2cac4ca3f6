/**
 * What an operator sees of tasks changing hands between replicas and of the shared task store's state
 * (docs/production.md, "When Redis or a replica fails"): each re-drive, lost lease and give-up is one `warn` line
 * naming the task and its call_id, one audit record and one count of its metric; each change of the task store's
 * state is one line (warn when it stops answering, info when it answers again).
 */
import type { AuditSink } from '../calls/audit/sink.js';
import { taskEventRecord, type TaskEventRecord } from '../calls/audit/record.js';
import type { LifecycleHooks } from '../calls/tasks/lifecycle.js';
import { forwardWorkOf } from '../calls/tasks/records.js';
import type { TaskStoreState } from '../calls/tasks/store-state.js';
import type { TaskRecord } from '../calls/tasks/store.js';
import type { Logger } from '../platform/log.js';
import type { Metrics } from '../platform/metrics.js';

type Event = TaskEventRecord['event'];

const MESSAGES: Record<Event, string> = {
  redrive: "task re-driven: its runner's lease lapsed, this replica runs its call again (same call_id)",
  lease_lost: 'task lease lost: another replica took the task over; its call stops here',
  gave_up: 'task given up: taken over more than tasks.maxRedrives times, it ends failed instead of running again',
};

/** The lifecycle's hooks for take-overs: a log line, an audit record and a metric each. */
export function taskEventHooks(
  holder: () => string,
  out: { log: Logger; metrics: Metrics; audit: AuditSink },
): Pick<LifecycleHooks, 'onRedrive' | 'onLeaseLost' | 'onGiveUp'> {
  const told = (event: Event, record: TaskRecord, count: () => void) => {
    const work = forwardWorkOf(record.work);
    const replica = holder();
    out.log.warn({ task_id: record.taskId, call_id: work?.callId, tool: work?.tool, redrives: record.redrives, replica }, MESSAGES[event]);
    out.audit.write(
      taskEventRecord({ event, taskId: record.taskId, callId: work?.callId, tool: work?.tool, principal: work?.principal, redrives: record.redrives, replica }),
    );
    count();
  };
  return {
    onRedrive: (record) => told('redrive', record, () => out.metrics.countRedrive()),
    onLeaseLost: (record) => told('lease_lost', record, () => out.metrics.countLeaseLost()),
    onGiveUp: (record) => told('gave_up', record, () => out.metrics.countGiveUp()),
  };
}

/** One line per change of the shared task store's state. */
export function logTaskStoreState(log: Logger): (state: TaskStoreState) => void {
  return (state) => {
    if (state.available) log.info('task store (Redis) answers again: tasks are created and read there');
    else
      log.warn(
        { reason: state.reason },
        'task store (Redis) does not answer: new tasks are refused (task_store_unavailable), existing ones are answered from what this replica holds',
      );
  };
}
