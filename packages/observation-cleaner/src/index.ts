export { cleanObservation, cleanWithResolvedOptions, type CleanedObservation } from "./clean-observation";
export { ObservationCleaner } from "./observation-cleaner";
export {
  DEFAULT_CLEAN_OBSERVATION_OPTIONS,
  resolveCleanObservationOptions,
  type CleanObservationOptions,
  type CleanedObservationSummary,
  type ObservationCleanerOptions,
  type ObservationContext,
  type ObservationStyle,
  type ObservationTemplate,
  type RawObservationRecord,
} from "./options";
export { neutralizeActionBlobs, neutralizeControlLines, type NeutralizedText } from "./neutralize";
export { countTokensCl100k, estimateTokens } from "./tokens";
export { ObservationCleanerError, ObservationCleanerOptionsError, type ObservationCleanerErrorOptions } from "./errors";
