/** Comparing arms of archives: the CLI's and notebook 07's front door (npm run compare). Re-exports only. */
export { DEFAULT_RESAMPLES } from "./bootstrap";
export { compareAxis, type CompareAxis } from "./compare-axis";
export { type CompareSpec, type ComparisonRun, DEFAULT_SEED, parseArmOption, readCompareConfigFile, runComparison } from "./compare-config";
