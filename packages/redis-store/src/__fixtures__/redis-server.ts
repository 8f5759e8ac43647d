// The throwaway redis-server of these tests lives in @reins/testing (shared with the examples' tests).
export { startRedis, type TestRedis } from "@reins/testing";
