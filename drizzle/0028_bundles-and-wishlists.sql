CREATE TABLE "bundle_books" (
	"bundle_id" uuid NOT NULL,
	"book_id" uuid NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "bundle_books_bundle_id_book_id_pk" PRIMARY KEY("bundle_id","book_id")
);
--> statement-breakpoint
CREATE TABLE "bundles" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"slug" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"price_cents" integer NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bundles_slug_check" CHECK ("bundles"."slug" ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
	CONSTRAINT "bundles_price_check" CHECK ("bundles"."price_cents" > 0),
	CONSTRAINT "bundles_currency_check" CHECK ("bundles"."currency" ~ '^[A-Z]{3}$')
);
--> statement-breakpoint
CREATE TABLE "cart_bundles" (
	"cart_id" uuid NOT NULL,
	"bundle_id" uuid NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cart_bundles_cart_id_bundle_id_pk" PRIMARY KEY("cart_id","bundle_id")
);
--> statement-breakpoint
CREATE TABLE "wishlist_items" (
	"wishlist_id" uuid NOT NULL,
	"book_id" uuid NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	"seen_price_cents" integer NOT NULL,
	CONSTRAINT "wishlist_items_wishlist_id_book_id_pk" PRIMARY KEY("wishlist_id","book_id"),
	CONSTRAINT "wishlist_items_seen_price_check" CHECK ("wishlist_items"."seen_price_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "wishlists" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text,
	"share_token" text,
	"notify" boolean DEFAULT false NOT NULL,
	"unsubscribe_token" text NOT NULL,
	"notified_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wishlists_user_id_unique" UNIQUE("user_id")
);
--> statement-breakpoint
ALTER TABLE "order_items" ADD COLUMN "bundle_id" uuid;--> statement-breakpoint
ALTER TABLE "bundle_books" ADD CONSTRAINT "bundle_books_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bundle_books" ADD CONSTRAINT "bundle_books_book_id_books_id_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cart_bundles" ADD CONSTRAINT "cart_bundles_cart_id_carts_id_fk" FOREIGN KEY ("cart_id") REFERENCES "public"."carts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cart_bundles" ADD CONSTRAINT "cart_bundles_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wishlist_items" ADD CONSTRAINT "wishlist_items_wishlist_id_wishlists_id_fk" FOREIGN KEY ("wishlist_id") REFERENCES "public"."wishlists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wishlist_items" ADD CONSTRAINT "wishlist_items_book_id_books_id_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wishlists" ADD CONSTRAINT "wishlists_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bundle_books_book_id_idx" ON "bundle_books" USING btree ("book_id");--> statement-breakpoint
CREATE UNIQUE INDEX "bundles_slug_unique" ON "bundles" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "cart_bundles_bundle_id_idx" ON "cart_bundles" USING btree ("bundle_id");--> statement-breakpoint
CREATE INDEX "wishlist_items_book_id_idx" ON "wishlist_items" USING btree ("book_id");--> statement-breakpoint
CREATE UNIQUE INDEX "wishlists_share_token_unique" ON "wishlists" USING btree ("share_token");--> statement-breakpoint
CREATE UNIQUE INDEX "wishlists_unsubscribe_token_unique" ON "wishlists" USING btree ("unsubscribe_token");--> statement-breakpoint
CREATE INDEX "wishlists_anonymous_updated_at_idx" ON "wishlists" USING btree ("updated_at") WHERE "wishlists"."user_id" is null;--> statement-breakpoint
ALTER TABLE "order_items" ADD CONSTRAINT "order_items_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_items_bundle_id_idx" ON "order_items" USING btree ("bundle_id") WHERE "order_items"."bundle_id" is not null;