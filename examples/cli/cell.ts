interface Issue { number: number; title: string }

const file = await tools.read_file({ path: 'README.md' });
const issues: Issue[] = await tools.list_issues();
text(`${issues.length} open issues`);
const deploy = await tools.deploy_status();
return { lines: file.content.split('\n').length, first: issues[0].title, deploy: deploy.status };
