export { cleanObservation, type CleanedObservation } from "./clean-observation";
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
} from "./observation-cleaner-options";
export { neutralizeActionBlobs, neutralizeControlLines, type NeutralizedText } from "./neutralize";
export { countTokensCl100k, estimateTokens } from "./tokens";
export {
  ArtifactStoreError,
  ObservationCleanerError,
  ObservationCleanerOptionsError,
  type ArtifactStoreErrorReason,
  type ObservationCleanerErrorOptions,
} from "./errors";
export { ArtifactStore, artifactText, type ArtifactSink, type ArtifactStoreOptions, type StoredArtifact } from "./artifact-store";
export { createReadArtifactTool, readArtifactPage, type ReadArtifactInput, type ReadArtifactToolOptions } from "./read-artifact-tool";
