// `check`: the fixture-tree rules, exactly as the guards project runs them (it is that project: the rules
// need the project's configuration, e.g. the agents a scenario may name), without replaying anything.
import { runFixtureProject } from './run-project.js';

process.exitCode = await runFixtureProject('guards', process.argv.slice(2));
