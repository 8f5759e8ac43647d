export {
  REPO_ROOT,
  REQUIRE_ALL_VARIABLE,
  SHARED_DIR,
  describeRequiring,
  describeWithShared,
  sharedPath,
  unmetReason,
  type Requirement,
} from "./requirements";
