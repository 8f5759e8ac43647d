// The fake-time helpers live in @reins/testing (one home for every package's tests).
export { never, seededRandom, settleWithFakeTimers } from "@reins/testing";
