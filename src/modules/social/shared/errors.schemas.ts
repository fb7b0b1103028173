import { errorResponse } from "../../../http/schemas.js";

/** The social operations' own error answers (api() in src/http/access.ts adds the common ones). */
export const E403 = errorResponse(403, "Not yours, or the owner restricts your interactions");
export const E404 = (what: string) => errorResponse(404, what);
