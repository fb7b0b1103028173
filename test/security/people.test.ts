import { runSecurityCases } from "../support/security-suite.js";

runSecurityCases("people");
