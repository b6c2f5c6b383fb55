CREATE TABLE "gifts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"buyer_id" text NOT NULL,
	"book_id" uuid,
	"bundle_id" uuid,
	"recipient_email" text NOT NULL,
	"recipient_name" text DEFAULT '' NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"deliver_on" timestamp with time zone NOT NULL,
	"order_id" uuid,
	"claim_token_hash" text,
	"sent_at" timestamp with time zone,
	"claimed_at" timestamp with time zone,
	"claimed_by" text,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "gifts_item_check" CHECK (("gifts"."book_id" is null) <> ("gifts"."bundle_id" is null)),
	CONSTRAINT "gifts_message_check" CHECK (length("gifts"."message") <= 1000)
);
--> statement-breakpoint
ALTER TABLE "gifts" ADD CONSTRAINT "gifts_buyer_id_user_id_fk" FOREIGN KEY ("buyer_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gifts" ADD CONSTRAINT "gifts_book_id_books_id_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gifts" ADD CONSTRAINT "gifts_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gifts" ADD CONSTRAINT "gifts_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gifts" ADD CONSTRAINT "gifts_claimed_by_user_id_fk" FOREIGN KEY ("claimed_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "gifts_order_id_unique" ON "gifts" USING btree ("order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "gifts_claim_token_hash_unique" ON "gifts" USING btree ("claim_token_hash");--> statement-breakpoint
CREATE INDEX "gifts_buyer_id_idx" ON "gifts" USING btree ("buyer_id","created_at");