/**
 * The curated lists (decision 0136): themed baskets of the catalog's real instruments, by
 * instrument id. Edited here; an id the catalog lacks is left out when served.
 */
export interface CuratedList {
  uuid: string;
  name: string;
  description: string;
  instrumentIds: readonly number[];
}

export const CURATED_LISTS: readonly CuratedList[] = [
  {
    uuid: "6f1c2a9e-0b3d-4c1e-9a51-3d2f7b8e1001",
    name: "Big Tech",
    description: "The largest US technology and internet companies by market capitalisation",
    instrumentIds: [1003, 1001, 1007, 1005, 1004, 1006],
  },
  {
    uuid: "6f1c2a9e-0b3d-4c1e-9a51-3d2f7b8e1002",
    name: "Chip Makers",
    description: "Designers of the processors and graphics chips behind computing and AI",
    instrumentIds: [1007, 1015],
  },
  {
    uuid: "6f1c2a9e-0b3d-4c1e-9a51-3d2f7b8e1003",
    name: "Banks and Payments",
    description: "Banks, card networks and a financial-sector fund on both sides of the Atlantic",
    instrumentIds: [1009, 1012, 2002, 2001, 3005],
  },
  {
    uuid: "6f1c2a9e-0b3d-4c1e-9a51-3d2f7b8e1004",
    name: "European Blue Chips",
    description: "Leading companies listed in London and Frankfurt",
    instrumentIds: [2003, 2002, 2004, 2001],
  },
  {
    uuid: "6f1c2a9e-0b3d-4c1e-9a51-3d2f7b8e1005",
    name: "Crypto Majors",
    description: "The largest crypto assets by market capitalisation",
    instrumentIds: [100000, 100001, 100063, 100003],
  },
  {
    uuid: "6f1c2a9e-0b3d-4c1e-9a51-3d2f7b8e1006",
    name: "Broad Market ETFs",
    description: "Funds that track the S&P 500, the Nasdaq-100 and the whole US stock market",
    instrumentIds: [3001, 3002, 3003],
  },
];
