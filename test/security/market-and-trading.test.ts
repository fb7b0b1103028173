import { runSecurityCases } from "../support/security-suite.js";

runSecurityCases("market-and-trading");
