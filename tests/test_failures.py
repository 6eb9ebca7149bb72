from pathlib import Path

from tests.failures import failures

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="1" tests="3">
<testcase classname="tests.e2e.test_a" name="test_ok" time="1.0"/>
<testcase classname="tests.e2e.test_a" name="test_bad" time="1.0">
<failure message="AssertionError: spooled samples not delivered:&#10;[1, 2]">stack = Stack()
&#10;tests/e2e/test_a.py:41: in test_bad
    name, data = download(page, button)
tests/e2e/helpers.py:12: in download
    with page.expect_download() as info:
.venv/lib/python3.11/site-packages/playwright/sync_api/_generated.py:900: in __exit__
    raise TimeoutError</failure>
</testcase>
<testcase classname="tests.e2e.test_b" name="test_torn" time="1.0">
<error message="failed on teardown with &quot;busy&quot;">trace</error></testcase>
</testsuite></testsuites>
"""


def test_each_failure_and_error_a_line_with_its_message(tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    path.write_text(JUNIT)
    assert failures(path) == [
        "FAILURE tests.e2e.test_a::test_bad at tests/e2e/test_a.py:41 > tests/e2e/helpers.py:12: "
        "AssertionError: spooled samples not delivered: [1, 2]",
        'ERROR tests.e2e.test_b::test_torn: failed on teardown with "busy"',
    ]
