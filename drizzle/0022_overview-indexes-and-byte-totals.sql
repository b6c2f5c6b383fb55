ALTER TABLE "rate_limits" ALTER COLUMN "hits" SET DATA TYPE bigint;--> statement-breakpoint
CREATE INDEX "orders_paid_at_idx" ON "orders" USING btree ("paid_at") WHERE "orders"."paid_at" is not null;--> statement-breakpoint
CREATE INDEX "orders_refund_pending_idx" ON "orders" USING btree ("refund_requested_at") WHERE "orders"."refund_requested_at" is not null and "orders"."refunded_at" is null;