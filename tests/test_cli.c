/* Unit tests for src/cli.c: commands, operands and flags generated from the tool catalog. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "suggest.h"
#include "testlib.h"

/* Parse argv as the CLI would and return the tool parameters it makes (NULL when it refuses). */
static json_t *
parse(int argc, char **argv, struct cli *o)
{
	memset(o, 0, sizeof *o);
	ck_assert_msg(cli_find_command(argv[0], &o->cmd), "no command %s", argv[0]);
	o->pos = calloc((size_t)argc, sizeof *o->pos);
	o->flags = json_object();
	json_t *params = NULL;
	const char *file = NULL;
	if (cli_parse(o, argc, argv) == 0)
		params = o->cmd.kind == CLI_TOOL ? cli_operands(o, &file) : json_incref(o->flags);
	free(o->pos);
	json_decref(o->flags);
	o->pos = NULL;
	return params;
}

#define ARGV(...) (sizeof((char *[]){__VA_ARGS__}) / sizeof(char *)), ((char *[]){__VA_ARGS__})

/* Every tool with a CLI name is a command; the others only through call; names are unique. */
START_TEST(commands_from_catalog)
{
	size_t n;
	const struct tool *list = tools_list(&n);
	for (size_t i = 0; i < n; i++) {
		struct cli_command c;
		if (list[i].cli == NULL)
			continue;
		ck_assert(cli_find_command(list[i].cli, &c));
		ck_assert_ptr_eq(c.tool, &list[i]);
		ck_assert_ptr_eq(cli_find_tool(list[i].command), &list[i]);
	}
	struct cli_command c;
	ck_assert(cli_find_command("dialog", &c));
	ck_assert_str_eq(c.tool->name, "browser_handle_dialog");
	ck_assert(cli_find_command("history", &c) && c.kind == CLI_HISTORY);
	ck_assert(!cli_find_command("nope", &c));
	ck_assert_ptr_eq(cli_find_tool("press-key"), cli_find_tool("browser_press_key"));
}
END_TEST

/* Operands are the TP_POSITIONAL parameters in order; flags the others, typed by the catalog. */
START_TEST(operands_and_flags)
{
	struct cli o;
	json_t *p = parse(ARGV("type", "e1", "hello", "--submit", "--no-clear", "--tab", "3", "--no-page", "--json"), &o);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(json_string_value(json_object_get(p, "target")), "e1");
	ck_assert_str_eq(json_string_value(json_object_get(p, "text")), "hello");
	ck_assert(json_is_true(json_object_get(p, "submit")));
	ck_assert(json_is_false(json_object_get(p, "clear")));
	ck_assert(json_is_false(json_object_get(p, "wait_for_page_info")));
	ck_assert_int_eq(json_integer_value(json_object_get(p, "tab_id")), 3);
	ck_assert_int_eq(o.json, 1);
	json_decref(p);

	p = parse(ARGV("dialog", "true", "--prompt-text=Ada", "--timeout", "500"), &o);
	ck_assert(json_is_true(json_object_get(p, "accept")));
	ck_assert_str_eq(json_string_value(json_object_get(p, "prompt_text")), "Ada");
	ck_assert_int_eq(json_integer_value(json_object_get(p, "timeout_ms")), 500);
	json_decref(p);

	p = parse(ARGV("switch-tab", "7"), &o);
	ck_assert_int_eq(json_integer_value(json_object_get(p, "tab_id")), 7);
	json_decref(p);
	p = parse(ARGV("scroll"), &o); /* an optional operand may be left out */
	ck_assert_int_eq(json_object_size(p), 0);
	json_decref(p);
	p = parse(ARGV("wait-for", "--selector", "#x", "--state", "hidden"), &o);
	ck_assert_str_eq(json_string_value(json_object_get(p, "selector")), "#x");
	json_decref(p);
	p = parse(ARGV("history", "q", "--limit", "5", "--timeout", "900", "--http", "127.0.0.1:1"), &o);
	ck_assert_str_eq(o.limit, "5");
	ck_assert_str_eq(o.conn.http, "127.0.0.1:1");
	ck_assert_int_eq(json_integer_value(json_object_get(p, "timeout_ms")), 900);
	json_decref(p);
}
END_TEST

/* What the CLI refuses before contacting anyone. */
START_TEST(refusals)
{
	struct cli o;
	ck_assert_ptr_null(parse(ARGV("open"), &o));                            /* missing URL */
	ck_assert_ptr_null(parse(ARGV("click", "a", "b"), &o));                 /* one too many */
	ck_assert_ptr_null(parse(ARGV("dialog", "maybe"), &o));                 /* not a boolean */
	ck_assert_ptr_null(parse(ARGV("type", "e1", "x", "--no-submitt"), &o)); /* unknown flag */
	ck_assert_ptr_null(parse(ARGV("open", "u", "--no-url"), &o));           /* --no- of a string */
	ck_assert_ptr_null(parse(ARGV("open", "u", "--new-tab=1"), &o));        /* a boolean takes no value */
	ck_assert_ptr_null(parse(ARGV("page", "--tab", "x"), &o));              /* not an integer */
	ck_assert_ptr_null(parse(ARGV("history", "--json-params", "{}"), &o));  /* call's option only */
	ck_assert_ptr_null(parse(ARGV("screenshot"), &o));                      /* missing FILE */
	ck_assert_ptr_null(parse(ARGV("page", "--timeout"), &o));               /* needs a value */
}
END_TEST

/* "Did you mean": edit distance with swaps, a limit that grows with the word, the closest name. */
START_TEST(suggestions)
{
	ck_assert_uint_eq(suggest_distance("open", "open"), 0);
	ck_assert_uint_eq(suggest_distance("opne", "open"), 1); /* a swap is one edit */
	ck_assert_uint_eq(suggest_distance("", "abc"), 3);
	ck_assert_uint_eq(suggest_distance("kitten", "sitting"), 3);
	const char *names[] = {"open", "click", "status", "history"};
	ck_assert_str_eq(suggest_closest("opne", names, 4), "open");
	ck_assert_str_eq(suggest_closest("statsu", names, 4), "status");
	ck_assert_str_eq(suggest_closest("histroy", names, 4), "history");
	ck_assert_ptr_null(suggest_closest("xyz", names, 4));
	ck_assert_ptr_null(suggest_closest("open", names, 4)); /* the word itself is no suggestion */
	char longer[200];
	memset(longer, 'a', sizeof longer - 1);
	longer[sizeof longer - 1] = '\0';
	ck_assert_ptr_null(suggest_closest(longer, names, 4)); /* too long to compare: none, no overflow */
	ck_assert_str_eq(cli_suggest_command("opne"), "open");
	ck_assert_str_eq(cli_suggest_command("sreve"), "serve");
	ck_assert_str_eq(cli_suggest_tool("opne"), "browser_open_url");
	ck_assert_str_eq(cli_suggest_tool("browser_press_kye"), "browser_press_key");
	ck_assert_ptr_null(cli_suggest_tool("zzzzzz"));
}
END_TEST

/* The flags a command takes, spelled as typed: its parameters (booleans both ways) and the general ones. */
START_TEST(flag_names)
{
	struct cli_command c;
	ck_assert(cli_find_command("type", &c));
	size_t n;
	char **f = cli_flag_names(&c, &n);
	int clear = 0, noclear = 0, json = 0, text = 0;
	for (size_t i = 0; i < n; i++) {
		clear |= !strcmp(f[i], "--clear");
		noclear |= !strcmp(f[i], "--no-clear");
		json |= !strcmp(f[i], "--json");
		text |= !strcmp(f[i], "--text"); /* an operand, not a flag */
	}
	ck_assert(clear && noclear && json && !text);
	cli_names_free(f, n);
	ck_assert(cli_find_command("history", &c));
	f = cli_flag_names(&c, &n);
	int del = 0;
	for (size_t i = 0; i < n; i++)
		del |= !strcmp(f[i], "--delete-site");
	ck_assert(del);
	cli_names_free(f, n);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");
	tcase_add_test(tc, commands_from_catalog);
	tcase_add_test(tc, operands_and_flags);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, suggestions);
	tcase_add_test(tc, flag_names);
	suite_add_tcase(s, tc);
	return testlib_run(s, 0);
}
