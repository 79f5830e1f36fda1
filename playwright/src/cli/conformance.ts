// `acp-snapshot conformance [OPTIONS] (--profile FILE | CMD [ARGS...])`: the conformance kit's command line
// (@acp-snapshot/conformance); exits 1 on failures, 2 on a usage error.
import { runConformanceCli } from '@acp-snapshot/conformance';

process.exit(await runConformanceCli(process.argv.slice(2)));
