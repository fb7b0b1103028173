import { runSecurityCases } from "../support/security-suite.js";

runSecurityCases("social-posts-and-feeds");
