/*
 * test_confread.c - lib/confread.c: the configuration parser's primitives,
 * one setting at a time: the value each returns, the default it keeps when
 * the setting is absent, and the exact "FILE:LINE: SETTING: what" of each
 * refusal.  The whole files they serve are in test_config.c.
 */
#include "confutil.h"

static void uint_in_range_is_read_and_an_absent_one_keeps_its_default(void)
{
	const config_setting_t *root = cf_parse("a = 5;\nbig = 70000;\ns = \"x\";\nneg = -1;\n");
	uint32_t v = 42;

	CU_ASSERT_EQUAL(conf_get_uint("t.conf", root, "missing", 1, 10, &v), 0);
	CU_ASSERT_EQUAL(v, 42);
	CU_ASSERT_EQUAL(conf_get_uint("t.conf", root, "a", 5, 5, &v), 0);
	CU_ASSERT_EQUAL(v, 5);
	cf_expect(conf_get_uint("t.conf", root, "big", 1, 65535, &v),
	          "t.conf:2: big: 70000 is out of range (1..65535)");
	cf_expect(conf_get_uint("t.conf", root, "s", 1, 10, &v),
	          "t.conf:3: s: expected an integer, not a string");
	cf_expect(conf_get_uint("t.conf", root, "neg", 0, 10, &v),
	          "t.conf:4: neg: -1 is out of range (0..10)");
	CU_ASSERT_EQUAL(v, 5);
}

static void member_names_its_path_and_line(void)
{
	const config_setting_t *root = cf_parse("g = {\n  x = 1;\n  l = [ 1, 2 ];\n};\n");
	const config_setting_t *g = config_setting_get_member(root, "g"), *s;

	CU_ASSERT_EQUAL(conf_member("t.conf", g, "x", CONFIG_TYPE_INT, true, &s), 0);
	CU_ASSERT_EQUAL(config_setting_get_int(s), 1);
	CU_ASSERT_EQUAL(conf_member("t.conf", g, "y", CONFIG_TYPE_INT, false, &s), 0);
	CU_ASSERT_PTR_NULL(s);
	cf_expect(conf_member("t.conf", g, "y", CONFIG_TYPE_INT, true, &s),
	          "t.conf:1: g.y: missing (required)");
	cf_expect(conf_member("t.conf", g, "l", CONFIG_TYPE_GROUP, true, &s),
	          "t.conf:3: g.l: expected a group { ... }, not an array [ ... ]");
	cf_expect(conf_member("t.conf", root, "z", CONFIG_TYPE_STRING, true, &s),
	          "t.conf:1: z: missing (required)");
}

static void unknown_keys_are_refused_with_the_known_ones(void)
{
	static const char *const keys[] = {"name", "kind", NULL};
	const config_setting_t *root = cf_parse("g = { name = 1; kind = 2; };\n"
	                                        "h = {\n  name = 1;\n  nmae = 2;\n};\n");

	CU_ASSERT_EQUAL(conf_check_keys("t.conf", config_setting_get_member(root, "g"), keys), 0);
	cf_expect(conf_check_keys("t.conf", config_setting_get_member(root, "h"), keys),
	          "t.conf:4: h.nmae: unknown setting (known: name, kind)");
}

static void names_are_a_letter_then_letters_digits_underscores_or_dashes(void)
{
	const config_setting_t *root =
	    cf_parse("a = \"rx_pkts-2\";\nb = \"2rx\";\nc = \"rx.pkts\";\nd = \"\";\n"
	             "e = \"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl\";\n");
	const char *name = NULL;

	CU_ASSERT_EQUAL_FATAL(conf_get_name("t.conf", root, "a", &name), 0);
	CU_ASSERT_STRING_EQUAL(name, "rx_pkts-2");
	free((void *)name);
	cf_expect(conf_get_name("t.conf", root, "b", &name),
	          "t.conf:2: b: invalid name \"2rx\" (expected a letter, then letters, digits, "
	          "'_' or '-', at most 63 characters)");
	CU_ASSERT_EQUAL(conf_get_name("t.conf", root, "c", &name), -EINVAL);
	CU_ASSERT_EQUAL(conf_get_name("t.conf", root, "d", &name), -EINVAL);
	/* 64 characters: one too many. */
	CU_ASSERT_EQUAL(conf_get_name("t.conf", root, "e", &name), -EINVAL);
	cf_expect(conf_get_name("t.conf", root, "f", &name), "t.conf:1: f: missing (required)");
}

static void texts_are_printable_ascii_of_bounded_length(void)
{
	const config_setting_t *root = cf_parse("d = \"Packets, received\";\n");
	const char *text = NULL;

	CU_ASSERT_EQUAL_FATAL(conf_get_text("t.conf", root, "d", &text), 0);
	CU_ASSERT_STRING_EQUAL(text, "Packets, received");
	free((void *)text);
	CU_ASSERT_EQUAL_FATAL(conf_get_text("t.conf", root, "units", &text), 0);
	CU_ASSERT_STRING_EQUAL(text, "");
	free((void *)text);
	CU_ASSERT_EQUAL(conf_check_text("t.conf", root, "d", " ~", 2), 0);
	cf_expect(conf_check_text("t.conf", root, "d", "ab\x7f", 10),
	          "t.conf:1: d: character 3 is not printable ASCII (byte 0x7f)");
	cf_expect(conf_check_text("t.conf", root, "d", "\tx", 10),
	          "t.conf:1: d: character 1 is not printable ASCII (byte 0x09)");
	cf_expect(conf_check_text("t.conf", root, "d", "abcde", 4),
	          "t.conf:1: d: 5 characters, at most 4 allowed");
}

static void modes_are_octal_strings_without_write_for_others(void)
{
	const config_setting_t *root = cf_parse("a = \"0640\";\nb = \"660\";\nc = \"0648\";\n"
	                                        "d = \"1777\";\ne = \"0646\";\nf = 640;\n");
	mode_t mode = 0600;

	CU_ASSERT_EQUAL(conf_get_mode("t.conf", root, "absent", &mode), 0);
	CU_ASSERT_EQUAL(mode, 0600);
	CU_ASSERT_EQUAL(conf_get_mode("t.conf", root, "a", &mode), 0);
	CU_ASSERT_EQUAL(mode, 0640);
	CU_ASSERT_EQUAL(conf_get_mode("t.conf", root, "b", &mode), 0);
	CU_ASSERT_EQUAL(mode, 0660);
	cf_expect(conf_get_mode("t.conf", root, "c", &mode),
	          "t.conf:3: c: \"0648\" is not an octal mode like \"0640\"");
	cf_expect(conf_get_mode("t.conf", root, "d", &mode),
	          "t.conf:4: d: mode 1777 has setuid, setgid or sticky bits (at most 0777)");
	cf_expect(conf_get_mode("t.conf", root, "e", &mode),
	          "t.conf:5: e: mode 0646 lets others write");
	cf_expect(conf_get_mode("t.conf", root, "f", &mode),
	          "t.conf:6: f: expected a string, not an integer");
	CU_ASSERT_EQUAL(mode, 0660);
}

static void lists_are_non_empty_lists_of_groups(void)
{
	const config_setting_t *root = cf_parse("l = ( { a = 1; }, { b = 2; } );\ne = ( );\n"
	                                        "m = ( { a = 1; },\n  5 );\n");
	const config_setting_t *list = NULL;
	uint32_t n = 0;

	CU_ASSERT_EQUAL(conf_get_list("t.conf", root, "l", &list, &n), 0);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_PTR_EQUAL(list, config_setting_get_member(root, "l"));
	cf_expect(conf_get_list("t.conf", root, "e", &list, &n),
	          "t.conf:2: e: empty list (at least one entry needed)");
	cf_expect(conf_get_list("t.conf", root, "m", &list, &n),
	          "t.conf:4: m.[1]: expected a group { ... }, not an integer");
	cf_expect(conf_get_list("t.conf", root, "x", &list, &n), "t.conf:1: x: missing (required)");
}

static void type_names_read_as_a_message_says_them(void)
{
	CU_ASSERT_STRING_EQUAL(conf_type_name(CONFIG_TYPE_INT64), "an integer");
	CU_ASSERT_STRING_EQUAL(conf_type_name(CONFIG_TYPE_BOOL), "a boolean");
	CU_ASSERT_STRING_EQUAL(conf_type_name(CONFIG_TYPE_LIST), "a list ( ... )");
	CU_ASSERT_STRING_EQUAL(conf_type_name(CONFIG_TYPE_FLOAT), "a float");
	CU_ASSERT_STRING_EQUAL(conf_type_name(99), "an unknown type");
	CU_ASSERT_EQUAL(conf_no_memory(), -ENOMEM);
	CU_ASSERT_STRING_EQUAL(statctr_errmsg(), "out of memory reading the configuration");
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"uint_in_range_is_read_and_an_absent_one_keeps_its_default",
	     uint_in_range_is_read_and_an_absent_one_keeps_its_default},
	    {"member_names_its_path_and_line", member_names_its_path_and_line},
	    {"unknown_keys_are_refused_with_the_known_ones",
	     unknown_keys_are_refused_with_the_known_ones},
	    {"names_are_a_letter_then_letters_digits_underscores_or_dashes",
	     names_are_a_letter_then_letters_digits_underscores_or_dashes},
	    {"texts_are_printable_ascii_of_bounded_length",
	     texts_are_printable_ascii_of_bounded_length},
	    {"modes_are_octal_strings_without_write_for_others",
	     modes_are_octal_strings_without_write_for_others},
	    {"lists_are_non_empty_lists_of_groups", lists_are_non_empty_lists_of_groups},
	    {"type_names_read_as_a_message_says_them", type_names_read_as_a_message_says_them},
	    {NULL, NULL},
	};
	int rc = tu_run("confread", cases);

	cf_cleanup();
	return rc;
}
