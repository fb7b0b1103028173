import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  CONNECT_TIMEOUT_MS,
  DatabaseUnavailableError,
  explainPostgresError,
  openDatabase,
  postgresAddress,
} from "../../src/infra/db/database.js";
import { PG_ADMIN_URL } from "../support/services.js";

/** The one-line error opening `url` fails with. */
async function openError(kind: "sqlite" | "postgres", url: string): Promise<DatabaseUnavailableError> {
  const error = await openDatabase({ kind, url }).then(
    async (db) => {
      await db.close();
      throw new Error(`${url} opened`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DatabaseUnavailableError);
  expect((error as Error).message).not.toContain("\n");
  return error as DatabaseUnavailableError;
}

/** A TCP server on a free loopback port that answers a connection with `onConnect`. */
async function fakeServer(onConnect: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  // Its sockets end with the server: a fake that never answers must not hold close() open.
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    onConnect(socket);
  });
  const close = server.close.bind(server);
  server.close = (callback) => {
    for (const socket of sockets) socket.destroy();
    return close(callback);
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** A PostgreSQL ErrorResponse (protocol 3): severity, SQLSTATE and message fields. */
function pgError(code: string, message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`, "utf8");
  const head = Buffer.alloc(5);
  head.write("E", 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

describe("opening PostgreSQL says where and why it failed, in one line", () => {
  const servers: Server[] = [];
  afterAll(async () => {
    for (const s of servers) await new Promise((resolve) => s.close(resolve));
  });

  it("a port nobody listens on: unreachable (connection refused)", async () => {
    const { server, port } = await fakeServer(() => {});
    await new Promise((resolve) => server.close(resolve));
    const error = await openError("postgres", `postgres://postgres:secret@127.0.0.1:${port}/test`);
    expect(error.message).toBe(
      `PostgreSQL at 127.0.0.1:${port} is unreachable (connection refused): is the server running, and are the host and port right?`,
    );
    expect(error.code).toBe("DatabaseUnavailable");
  });

  it("a server that refuses the login: the server's reason, without the password", async () => {
    const { server, port } = await fakeServer((socket) => {
      socket.once("data", () => socket.end(pgError("28P01", 'password authentication failed for user "app"')));
    });
    servers.push(server);
    const error = await openError("postgres", `postgres://app:hunter2@127.0.0.1:${port}/test`);
    expect(error.message).toBe(
      `PostgreSQL at 127.0.0.1:${port} refused the login: password authentication failed for user "app"`,
    );
    expect(error.message).not.toContain("hunter2");
  });

  it(`a server that never answers: unreachable after ${CONNECT_TIMEOUT_MS / 1000} s`, async () => {
    const { server, port } = await fakeServer(() => {});
    servers.push(server);
    const error = await openError("postgres", `postgres://app@127.0.0.1:${port}/test`);
    expect(error.message).toBe(`PostgreSQL at 127.0.0.1:${port} is unreachable (no answer within 10 s)`);
  }, 30_000);

  it("explains the other causes and reads the address pg would use", () => {
    const url = "postgres://u:pw@db.internal:6543/app";
    expect(
      explainPostgresError(url, Object.assign(new Error("getaddrinfo ENOTFOUND db.internal"), { code: "ENOTFOUND" })),
    ).toBe("PostgreSQL at db.internal:6543 is unreachable (the host name is unknown)");
    // Node's happy eyeballs: an AggregateError with an empty message, the code on it or its errors
    const aggregate = new AggregateError(
      [Object.assign(new Error("connect ECONNREFUSED ::1:5432"), { code: "ECONNREFUSED" })],
      "",
    );
    expect(explainPostgresError("postgres://localhost/app", aggregate)).toMatch(
      /^PostgreSQL at localhost:5432 is unreachable \(connection refused\)/,
    );
    expect(postgresAddress("postgres:///app?host=/var/run/postgresql", {})).toBe("/var/run/postgresql (socket)");
    expect(postgresAddress("postgres:///app", { PGHOST: "pg.example", PGPORT: "5444" })).toBe("pg.example:5444");
    expect(postgresAddress("postgresql://[::1]:5433/app", {})).toBe("[::1]:5433");
  });
});

describe.each(inject("services").postgres ? [PG_ADMIN_URL] : [])("opening the PostgreSQL at %s", (adminUrl) => {
  it("a database that does not exist: says which, and that the server is reachable", async () => {
    const url = new URL(adminUrl);
    url.pathname = "/sta_no_such_database";
    const error = await openError("postgres", url.toString());
    expect(error.message).toBe(
      `PostgreSQL at ${url.hostname}:${url.port || 5432} is reachable, but database "sta_no_such_database" does not exist: create it (createdb) or correct the database name`,
    );
  });

  it("opens the one that exists", async () => {
    const db = await openDatabase({ kind: "postgres", url: adminUrl });
    await db.ping();
    await db.close();
  });
});

describe("opening SQLite", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "sta-open-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a file that is not a database: says which file and why", async () => {
    const file = join(dir, "notes.txt");
    writeFileSync(file, "hello, not a database\n".repeat(10));
    const error = await openError("sqlite", file);
    expect(error.message).toBe(`Cannot open the SQLite database "${file}": file is not a database`);
  });

  it("a missing folder other than ./data is not made", async () => {
    const file = join(dir, "typo", "x.db");
    const error = await openError("sqlite", file);
    expect(error.message).toContain(`Cannot open the SQLite database "${file}"`);
    expect(existsSync(join(dir, "typo"))).toBe(false);
  });
});
