import { runSecurityCases } from "../support/security-suite.js";

runSecurityCases("social-interactions");
