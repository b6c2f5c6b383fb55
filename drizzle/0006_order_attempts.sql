-- Written by drizzle-kit, then edited: orders made before this migration have no attempt, so each gets its
-- own id (unique, so the unique index below holds on a database that already has orders) before the column
-- becomes NOT NULL.
ALTER TABLE "orders" ADD COLUMN "attempt_id" text;--> statement-breakpoint
UPDATE "orders" SET "attempt_id" = "id"::text WHERE "attempt_id" IS NULL;--> statement-breakpoint
ALTER TABLE "orders" ALTER COLUMN "attempt_id" SET NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "orders_attempt_unique" ON "orders" USING btree ("user_id","attempt_id");
