import { type Command, InvalidArgumentError, Option } from "commander";
import { AUDIT_ACTIONS } from "../core/audit.js";
import { listAudit } from "../modules/audit/list-audit.js";
import type { Ctx, Deps } from "../modules/context.js";
import type { Output } from "./output.js";

type WithStore = (cmd: Command, work: (ctx: Ctx, out: Output, deps: Deps) => Promise<void>) => Promise<void>;

function limitOf(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 10_000) throw new InvalidArgumentError("a whole number from 1 to 10000");
  return n;
}

function sinceOf(value: string): string {
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw new InvalidArgumentError("an ISO 8601 date or time, e.g. 2026-11-23T10:00:00Z");
  return new Date(at).toISOString();
}

/** `audit list`: the newest security events first (docs/decisions/0103). */
export function addAuditCommands(program: Command, withStore: WithStore): void {
  const audit = program.command("audit").description("the audit trail of security events");
  audit
    .command("list")
    .description("list security events, newest first")
    .addOption(new Option("--action <action>", "only this kind of event").choices([...AUDIT_ACTIONS]))
    .option("--user <id>", "only events about this user id")
    .option("--since <time>", "only events at or after this ISO 8601 time", sinceOf)
    .option("--limit <n>", "at most this many events", limitOf, 100)
    .action(async (o: { action?: string; user?: string; since?: string; limit: number }, cmd: Command) =>
      withStore(cmd, async (ctx, out) => {
        const events = await listAudit(ctx, { action: o.action, userId: o.user, since: o.since, limit: o.limit });
        out.result(events, () =>
          events.length === 0
            ? "no audit events"
            : events
                .map((e) =>
                  [
                    e.at,
                    e.action,
                    e.outcome,
                    e.actor ?? "-",
                    e.userId ? `user ${e.userId}` : "",
                    e.address ? `from ${e.address}` : "",
                    Object.keys(e.details).length ? JSON.stringify(e.details) : "",
                  ]
                    .filter(Boolean)
                    .join("  "),
                )
                .join("\n"),
        );
      }),
    );
}
