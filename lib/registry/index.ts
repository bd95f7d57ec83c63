/** The registry: concepts, one profile per framework, detection and the axis shapes; what every other folder reads about frameworks. Re-exports only. */
export { type Concept, CONCEPT_IDS, type ConceptDirection, type ConceptId, CONCEPTS, type CorridorDefaults } from "./concepts";
export { decideRunProfiles, type DetectedProfile, detectProfile, keysOfRuns, type RunKeys, type RunProfile } from "./detect-profile";
export {
  type AbsentConcept,
  absentReason,
  asLoggedStackCaption,
  type BatchStepKeys,
  type FrameworkProfile,
  type LoggingInterval,
  mappedKeys,
  matchesEntry,
  metricOf,
  type OwnRows,
  type ProfileAxis,
  profileMetrics,
  singular,
  stepRecordsDescription,
  type TensorboardSpec,
  type TimerSpec,
} from "./framework-profile";
export { expectedBetween, knownInterval, type KnownInterval } from "./logging-interval";
export { aliasOf, describeKey, grainOf, keysFor, metricByKey } from "./metric-lookup";
export type { ConceptMetric, KeyAlias, KeyFamily, MetricGrain, MetricSpec } from "./metric-spec";
export {
  MISMATCH_NOT_SHOWN,
  MISMATCH_QUANTITIES,
  MISMATCH_QUANTITY_IDS,
  type MismatchLookAlike,
  type MismatchMetric,
  mismatchMetricName,
  mismatchMetricsOf,
  type MismatchQuantity,
  type MismatchQuantityId,
  type MismatchSpec,
  type MismatchThreshold,
  type MismatchWorse,
} from "./mismatch";
export {
  type AxisCases,
  type AxisCasesOf,
  type AxisKind,
  type AxisOfKind,
  declaredStepKeys,
  onAxis,
  recordStepKey,
  stepAxisOf,
  unhandledAxis,
  updateStepKey,
} from "./profile-axis";
export { chooseProfile, profileForArchive, profileFromRunsConfig } from "./profile-choice";
export { MILES_PROFILE } from "./profile-miles";
export { OPENRLHF_PROFILE } from "./profile-openrlhf";
export { SLIME_BATCH_KEYS, SLIME_PROFILE, STEP_KEYS } from "./profile-slime";
export { TRL_PROFILE } from "./profile-trl";
export { VERL_PROFILE } from "./profile-verl";
export {
  allConfigTextTags,
  allDeclaredFlags,
  allDeclaredPackages,
  allVersionPackages,
  flagsLines,
  meaningNotes,
  metricOfAligned,
  PROFILE_NAMES,
  profileByName,
  profileLine,
  type ProfileName,
  profileOfAligned,
  PROFILES,
  recordAxisTitle,
  updatesUnobservable,
} from "./profiles";
export {
  conceptTableMarkdown,
  meaningsTableMarkdown,
  profileTableMarkdown,
  provenTableMarkdown,
  registryBlock,
  TABLE_MARKERS,
  tensorboardTableMarkdown,
  withRegistryBlock,
} from "./registry-table";
export {
  type ConditionalMeaning,
  type ConditionRun,
  conditionText,
  type FlagRule,
  type FlagsRead,
  type FlagType,
  type FlagValue,
  type Holds,
  holdsIn,
  type MeaningCondition,
  namespaceRepr,
  readFlags,
  type RunFlags,
  runsWhereHolds,
  runsWhereMayHold,
  type SemanticFlag,
  settingsText,
  statedFlags,
} from "./semantic-flags";
export {
  compareVersions,
  RECORDED_VERSIONS,
  recordedVersionsOf,
  type RunVersions,
  statedVersions,
  type VersionBound,
  type VersionKey,
  versionsOfConfig,
  versionsOfRequirements,
  type VersionSource,
  versionText,
} from "./versions";
