// People search's combinations for the first-answer timings (bench/people.mjs --first,
// bench/people-plans.mjs): every upstream sort in both directions, then the filter combinations.
export const SORTS = [
  "gain",
  "dailyGain",
  "thisWeekGain",
  "riskScore",
  "maxDailyRiskScore",
  "maxMonthlyRiskScore",
  "copiers",
  "profitableMonthsPct",
  "weeksSinceRegistration",
  "userName",
];

/** Name → query parameters (the route's names; period OneYearAgo, page 1 of 20 unless said). */
export function peopleCombos() {
  const query = (extra) => ({ period: "OneYearAgo", page: 1, pageSize: 20, ...extra });
  return {
    ...Object.fromEntries(
      SORTS.flatMap((s) => [
        [`-${s}`, query({ sort: `-${s}` })],
        [s, query({ sort: s })],
      ]),
    ),
    "risk 1-4, -gain": query({ maxDailyRiskScoreMin: 1, maxDailyRiskScoreMax: 4 }),
    "monthly risk ≤ 3, -gain": query({ maxMonthlyRiskScoreMax: 3 }),
    "monthly risk 2-5, dailyGain": query({ maxMonthlyRiskScoreMin: 2, maxMonthlyRiskScoreMax: 5, sort: "dailyGain" }),
    "country, popular, -gain": query({ period: "CurrMonth", countryId: 42, popularInvestor: false }),
    "country, -riskScore": query({ countryId: 42, sort: "-riskScore" }),
    "gainMax, weeks, riskScore": query({ gainMax: 5, weeksSinceRegistrationMin: 20, sort: "riskScore" }),
    "gainMin, weeks, -thisWeekGain": query({ gainMin: 0, weeksSinceRegistrationMin: 52, sort: "-thisWeekGain" }),
    "optIn, -copiers": query({ optIn: true, sort: "-copiers" }),
    "optIn, copiers": query({ optIn: true, sort: "copiers" }),
    "popular, profitableMonthsPct": query({ popularInvestor: true, sort: "profitableMonthsPct" }),
    "instrument ≥ 50%": query({ instrumentId: 1001, instrumentPctMin: 50 }),
    "not instrument, page 50": query({ instrumentId: -1001, page: 50 }),
    "maxDailyRiskScore, page 50": query({ sort: "maxDailyRiskScore", page: 50 }),
    "-dailyGain, page 50": query({ sort: "-dailyGain", page: 50 }),
  };
}

/** The route's query string of a combination. */
export const queryString = (q) => new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)])).toString();
