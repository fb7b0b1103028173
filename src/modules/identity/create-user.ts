import { requireSystem } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import { AppError, type Problem, validationFailed } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import { type Ctx, transact } from "../context.js";
import { identityRepository, type UserRow } from "./identity.repository.js";

export interface CreateUserInput {
  username: string;
  firstName?: string | undefined;
  lastName?: string | undefined;
  middleName?: string | undefined;
  countryCode?: number | undefined;
  isPrivate?: boolean | undefined;
}

const USERNAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{2,31}$/;

export async function createUser(ctx: Ctx, input: CreateUserInput): Promise<UserRow> {
  requireSystem(ctx.actor);
  const problems: Problem[] = [];
  if (!USERNAME_RE.test(input.username)) {
    problems.push({
      field: "username",
      problem: "must be 3 to 32 letters, digits, '.', '_' or '-', starting with a letter or digit",
    });
  }
  for (const field of ["firstName", "lastName", "middleName"] as const) {
    const value = input[field];
    if (value !== undefined && value.length > 64) problems.push({ field, problem: "must be at most 64 characters" });
  }
  if (problems.length > 0) throw validationFailed(problems);

  return transact(ctx, async (trx, record) => {
    const repo = identityRepository(trx);
    if (await repo.findUserByUsername(input.username)) {
      throw new AppError("Conflict", `The username "${input.username}" is taken`);
    }
    const createdAt = isoNow(ctx.clock);
    const user = await repo.insertUser({
      id: newId(),
      username: input.username,
      usernameLower: input.username.toLowerCase(),
      firstName: input.firstName ?? null,
      middleName: input.middleName ?? null,
      lastName: input.lastName ?? null,
      playerLevel: 1,
      gender: 0,
      language: 1,
      dateOfBirth: "",
      lei: null,
      countryCode: input.countryCode ?? 0,
      piLevel: 0,
      isPrivate: input.isPrivate ? 1 : 0,
      passwordHash: null,
      createdAt,
    });
    record({ type: "UserRegistered", userId: user.id, username: user.username, occurredAt: createdAt });
    return user;
  });
}
