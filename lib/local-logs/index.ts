/** slime's local training logs: parsing the printed metric dicts and checking them against W&B. */
export * from "./python-repr";
export * from "./parse-slime-log";
export * from "./cross-check";
