CREATE TABLE "annotations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"book_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"edition" integer NOT NULL,
	"cfi" text NOT NULL,
	"quote" text DEFAULT '' NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "annotations_kind_check" CHECK ("annotations"."kind" in ('bookmark', 'highlight'))
);
--> statement-breakpoint
CREATE TABLE "errata" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"book_id" uuid NOT NULL,
	"edition" integer NOT NULL,
	"reporter_id" text,
	"credit" text DEFAULT '' NOT NULL,
	"quote" text NOT NULL,
	"location" text DEFAULT '' NOT NULL,
	"description" text NOT NULL,
	"suggestion" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"fixed_in_edition" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "errata_status_check" CHECK ("errata"."status" in ('open', 'confirmed', 'rejected', 'fixed')),
	CONSTRAINT "errata_fixed_check" CHECK (("errata"."status" = 'fixed') = ("errata"."fixed_in_edition" is not null))
);
--> statement-breakpoint
CREATE TABLE "reading_positions" (
	"user_id" text NOT NULL,
	"book_id" uuid NOT NULL,
	"edition" integer NOT NULL,
	"cfi" text NOT NULL,
	"fraction" double precision NOT NULL,
	"quote" text DEFAULT '' NOT NULL,
	"read_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reading_positions_user_id_book_id_pk" PRIMARY KEY("user_id","book_id"),
	CONSTRAINT "reading_positions_fraction_check" CHECK ("reading_positions"."fraction" >= 0 and "reading_positions"."fraction" <= 1)
);
--> statement-breakpoint
ALTER TABLE "annotations" ADD CONSTRAINT "annotations_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "annotations" ADD CONSTRAINT "annotations_book_id_books_id_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "errata" ADD CONSTRAINT "errata_book_id_books_id_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "errata" ADD CONSTRAINT "errata_reporter_id_user_id_fk" FOREIGN KEY ("reporter_id") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reading_positions" ADD CONSTRAINT "reading_positions_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reading_positions" ADD CONSTRAINT "reading_positions_book_id_books_id_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "annotations_reader_book_idx" ON "annotations" USING btree ("user_id","book_id","created_at");--> statement-breakpoint
CREATE INDEX "errata_book_idx" ON "errata" USING btree ("book_id","edition","created_at");--> statement-breakpoint
CREATE INDEX "errata_status_idx" ON "errata" USING btree ("status","created_at");